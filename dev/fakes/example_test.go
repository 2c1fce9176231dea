package fakes_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/triagehq/triage/dev/fakes"
)

// A script fails an item's first call with a rate limit, then succeeds.
func ExamplePlan_SetScript() {
	p := fakes.NewPlan()
	if err := p.SetScript("item-1", fakes.FaultRateLimit, fakes.Always(fakes.FaultInvalidJSON)); err != nil {
		fmt.Println(err)
		return
	}
	for range 4 {
		d := p.Decide("item-1")
		fmt.Println(d.Call, d.Fault)
	}
	// Output:
	// 1 rate_limit
	// 2 invalid_json
	// 3 invalid_json
	// 4 invalid_json
}

// The same seed gives the same faults; transient faults stop after
// TransientCalls, so call 3 of every key without a sticky fault succeeds.
func ExampleMix_Fault() {
	m := fakes.Mix{Seed: 1, Rates: map[fakes.Fault]float64{fakes.FaultRateLimit: 0.9}}
	for call := 1; call <= 3; call++ {
		fmt.Println(call, m.Fault("item-1", call))
	}
	// Output:
	// 1 rate_limit
	// 2 rate_limit
	// 3 none
}

// A webhook receiver counts deliveries per idempotency key.
func ExampleWebhook() {
	hook := fakes.NewWebhook(fakes.WebhookOptions{})
	srv, err := fakes.Start("", hook)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hooks/ops", strings.NewReader(`{"item_id":"i1"}`))
		req.Header.Set(fakes.IdempotencyHeader, "i1:notify")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	fmt.Println("deliveries:", hook.DeliveryCount("i1:notify"), "duplicates:", hook.Duplicates())
	// Output:
	// 200 ok
	// 200 ok
	// deliveries: 2 duplicates: 1
}
