package soak_test

import (
	"fmt"

	"github.com/triagehq/triage/dev/soak"
)

// A SecretScan looks for each planted secret's exact value and its
// fragments in every unit of text it is given.
func ExampleSecretScan() {
	scan := soak.NewSecretScan([]soak.Secret{{Name: "API key", Value: "sk-proj-q8Zr2LxVw3Kp9Tb",
		Needles: []string{"sk-proj-q8Zr2LxVw3Kp9Tb", "q8Zr2LxVw3Kp"}}})
	scan.Line("LLMFunc", `{"level":"WARN","msg":"failure: will retry","error":"HTTP 401: Incorrect API key provided: [REDACTED:openai-key]"}`)
	scan.Search(soak.CorpusDLQ, "llm DLQ message 1", `{"last_stack":"HTTP 401: key q8Zr2LxVw3Kp… revoked"}`)
	for _, l := range scan.Leaks() {
		fmt.Printf("%s: %s in %s (%s)\n", l.Secret, l.Needle, l.Corpus, l.Where)
	}
	fmt.Println(scan.Searched())
	// Output:
	// API key: fragment q8Zr2LxVw3Kp in DLQ payloads (llm DLQ message 1)
	// map[DLQ payloads:1 function log lines:1]
}
