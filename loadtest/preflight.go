package loadtest

import (
	"context"
	"fmt"
	"net/http"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
)

// preflight checks the server before any load (loadgen.Preflight) and
// settles --model: the server's only model when none was given. A failure
// is bad input (exit 2) and leaves nothing behind.
func preflight(ctx context.Context, o *Options, client *http.Client) (loadgen.ModelsInfo, error) {
	if o.NoPreflight {
		// Best effort, for metadata.json only.
		models, err := loadgen.FetchModels(ctx, client, o.URL, o.APIKey)
		if err != nil {
			fmt.Fprintf(o.Stderr, "thinkcap: warning: %v\n", err)
		}
		return models, nil
	}
	res, err := loadgen.Preflight(ctx, loadgen.PreflightConfig{
		URL: o.URL, Model: o.Model, APIKey: o.APIKey, APIKeyEnv: o.APIKeyEnv,
		HTTPClient: client, Metrics: o.ScrapeInterval > 0,
	})
	if err != nil {
		return res.Models, inputerr.New(fmt.Errorf("preflight: %w (--no-preflight skips this check)", err))
	}
	if res.Picked {
		fmt.Fprintf(o.Stderr, "thinkcap: --model not given: using %s, the only model the server serves\n", res.Model)
		o.Model = res.Model
	}
	return res.Models, nil
}
