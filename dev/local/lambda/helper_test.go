package lambda_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/localtest"
)

// helperEnv makes the test binary act as a hand-written runtime (see
// runProtocolHelper) when it is started as a bootstrap.
const helperEnv = "LAMBDA_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "protocol" {
		runProtocolHelper()
		os.Exit(0)
	}
	localtest.Main(m)
}

// runProtocolHelper speaks the Runtime API by hand, to exercise what
// aws-lambda-go never does: wrong request ids, late init errors, error
// types in headers and trailers, double answers. Each event names an
// action.
func runProtocolHelper() {
	api := "http://" + os.Getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime"
	for {
		resp, err := http.Get(api + "/invocation/next")
		if err != nil {
			fmt.Println("next:", err)
			os.Exit(1)
		}
		event, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("Lambda-Runtime-Aws-Request-Id")
		var in struct{ Action string }
		_ = json.Unmarshal(event, &in)
		switch in.Action {
		case "report":
			report := map[string]any{
				"next_status":            resp.StatusCode,
				"content_type":           resp.Header.Get("Content-Type"),
				"deadline_ms":            resp.Header.Get("Lambda-Runtime-Deadline-Ms"),
				"arn":                    resp.Header.Get("Lambda-Runtime-Invoked-Function-Arn"),
				"trace_id":               resp.Header.Get("Lambda-Runtime-Trace-Id"),
				"request_id":             id,
				"wrong_id_status":        post(api+"/invocation/not-"+id+"/response", "{}", nil),
				"wrong_id_error_status":  post(api+"/invocation/not-"+id+"/error", "{}", nil),
				"init_error_after_ready": post(api+"/init/error", `{"errorType":"X"}`, nil),
			}
			b, _ := json.Marshal(report)
			fmt.Println("ok status", post(api+"/invocation/"+id+"/response", string(b), nil))
			fmt.Println("second answer status", post(api+"/invocation/"+id+"/response", "{}", nil))
		case "error-header":
			post(api+"/invocation/"+id+"/error", "plain text failure", http.Header{"Lambda-Runtime-Function-Error-Type": {"Custom.Type"}})
		case "trailer":
			doc := base64.StdEncoding.EncodeToString([]byte(`{"errorMessage":"stream broke","errorType":"Stream.Failed"}`))
			postTrailer(api+"/invocation/"+id+"/response", "partial", http.Header{
				"Lambda-Runtime-Function-Error-Type": {"Stream.Failed"},
				"Lambda-Runtime-Function-Error-Body": {doc},
			})
		case "stall":
			// Answer, then never poll again: the service must not wait for
			// this environment for ever.
			post(api+"/invocation/"+id+"/response", `"stalling"`, nil)
			fmt.Println("stalling")
			time.Sleep(time.Hour)
		default:
			post(api+"/invocation/"+id+"/response", string(event), nil)
		}
	}
}

func post(url, body string, header http.Header) int {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return -1
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return send(req)
}

// send sends req and returns the answer's status, -1 when it fails.
func send(req *http.Request) int {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// onlyReader hides strings.Reader's length, so the request is chunked and
// can carry trailers.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func postTrailer(url, body string, trailer http.Header) int {
	req, err := http.NewRequest(http.MethodPost, url, onlyReader{strings.NewReader(body)})
	if err != nil {
		return -1
	}
	req.Trailer = trailer
	return send(req)
}
