package stack

import (
	"fmt"

	"github.com/weaviate/weaviate/entities/models"
)

// BatchError is the first per-object error of a batch import's reply, nil
// when every object was accepted: the batch endpoint answers 200 even when
// objects fail, so a caller that checks only the request's error misses
// them.
func BatchError(res []models.ObjectsGetResponse) error {
	for i, r := range res {
		if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
			return fmt.Errorf("object %d: %s", i, r.Result.Errors.Error[0].Message)
		}
	}
	return nil
}
