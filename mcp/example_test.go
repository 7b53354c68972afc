package mcp_test

import (
	"context"
	"log"
	"net/http"

	"github.com/cloudwego/eino/adk"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/mcp"
)

// A host mounts the server on its own HTTP server with the SDK's streamable transport.
func ExampleNewServer() {
	ctx := context.Background()
	backend, err := plan.NewLocalBackend(".")
	if err != nil {
		log.Fatal(err)
	}
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcp.NewServer(ctx, mcp.Options{Store: store, Language: adk.LanguageEnglish, RequireApproval: true})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.Server }, nil))
	log.Fatal(http.ListenAndServe("localhost:8080", nil))
}
