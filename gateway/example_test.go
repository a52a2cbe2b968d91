package gateway_test

import (
	"log"
	"net"
	"net/http"

	"github.com/diverse-select/diverse-select/gateway"
)

// ExampleNew serves the gateway in front of a Weaviate: gRPC on 50051,
// REST and GraphQL on 8080, as Weaviate does.
func ExampleNew() {
	g, err := gateway.New(gateway.Options{UpstreamGRPC: "weaviate:50051", UpstreamHTTP: "http://weaviate:8080",
		ConfigPath: "gateway.yaml"})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	grpcListener, err := net.Listen("tcp", ":50051")
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(g.ServeGRPC(grpcListener)) }()
	log.Fatal(http.ListenAndServe(":8080", g.HTTPHandler()))
}
