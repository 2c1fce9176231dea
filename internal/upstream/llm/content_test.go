package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
)

// TestOpenAIContentBlocks: an OpenAI-compatible answer whose content is a
// list of blocks (Mistral's Magistral models: a "thinking" block, then a
// "text" block) is read as its text blocks, whole or streamed; thinking is
// not the answer.
func TestOpenAIContentBlocks(t *testing.T) {
	t.Parallel()
	text, _ := json.Marshal(enrichmentJSON(nil))
	blocks := `[{"type":"thinking","thinking":[{"type":"text","text":"Let me read the document."}]},{"type":"text","text":` + string(text) + `}]`
	whole := `{"id":"c1","object":"chat.completion","model":"magistral-medium-2509","choices":[{"index":0,"message":{"role":"assistant","content":` +
		blocks + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}`
	stream := `data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me"}]}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":` + string(text) + `}]},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	for name, rec := range map[string]llm.Recorded{
		"whole":  {Body: []byte(whole)},
		"stream": {Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(stream)},
	} {
		enr, err := llm.JudgeRecorded(context.Background(), failure.Provider("mistral"), store.KindStory, rec)
		if err != nil || enr.PrimaryActor == "" {
			t.Errorf("%s: %+v, %v (%s)", name, enr, err, failure.Classify(err).Class)
		}
	}
}
