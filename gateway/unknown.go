package gateway

import (
	"fmt"
	"runtime/debug"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// unknownField refuses a selecting request that carries a field the
// gateway's protocol version (Weaviate's, as linked) does not know: newer
// clients add search options every release, and answering such a request
// would drop the option silently. A search that does not select passes
// through with its bytes, so Weaviate reads the field itself. nil when the
// request holds no unknown field.
func unknownField(m protoreflect.Message) error {
	if path, num, ok := firstUnknown(m, string(m.Descriptor().FullName())); ok {
		return status.Errorf(codes.InvalidArgument,
			"gateway: the selecting search carries field %d of %s, which this gateway's protocol (Weaviate %s) does not know; "+
				"the gateway does not answer it with the field dropped: upgrade the gateway, or send the search without selection settings "+
				"(it then passes through to Weaviate)", num, path, protocolVersion())
	}
	return nil
}

// protocolVersion is the Weaviate release whose gRPC protocol the gateway
// links (go.mod's).
func protocolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/weaviate/weaviate" {
				return d.Version
			}
		}
	}
	return "as linked"
}

// firstUnknown is the first unknown field in m or a message under it: the
// message's path and the field's number.
func firstUnknown(m protoreflect.Message, path string) (string, protowire.Number, bool) {
	if raw := m.GetUnknown(); len(raw) > 0 {
		num, _, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return path, 0, true
		}
		return path, num, true
	}
	var (
		foundPath string
		foundNum  protowire.Number
		found     bool
	)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		sub := fmt.Sprintf("%s.%s", path, fd.Name())
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := range l.Len() {
				if foundPath, foundNum, found = firstUnknown(l.Get(i).Message(), fmt.Sprintf("%s[%d]", sub, i)); found {
					return false
				}
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				foundPath, foundNum, found = firstUnknown(mv.Message(), fmt.Sprintf("%s[%v]", sub, k.Interface()))
				return !found
			})
			return !found
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			foundPath, foundNum, found = firstUnknown(v.Message(), sub)
			return !found
		}
		return true
	})
	return foundPath, foundNum, found
}
