package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/state"
)

// responseError judges a model's HTTP response — usually an HTTP 200 whose
// answer is unusable — exactly as the llm stage does: llm.JudgeRecorded
// replays it through the dialect's real client (the AWS SDK for Bedrock)
// and the stage's judgement (stop reason, then the enrichment JSON and an
// action's ACTION_OUTCOME). Input fields:
//
//	response  the response body (a JSON answer, or a text/event-stream)
//	dialect   openai|azure|anthropic|bedrock; else a model provider given as
//	          provider; else guessed from the body
//	status    the HTTP status; 0 is 200
//	headers   the response headers (Content-Type, X-Amzn-Errortype, …)
//	kind      story|document|action; default action when the body carries an
//	          ACTION_OUTCOME marker, story otherwise
//
// A usable answer is an error: the stage would not fail, so there is
// nothing to classify.
func responseError(in classifyInput) (error, error) {
	dialect, err := responseDialect(in)
	if err != nil {
		return nil, err
	}
	kind := state.KindStory
	switch {
	case in.Kind != "":
		if kind, err = state.ParseKind(in.Kind); err != nil {
			return nil, err
		}
	case strings.Contains(strings.ToUpper(in.Response), failure.ActionMarker):
		kind = state.KindAction
	}
	h := http.Header{}
	for k, v := range in.Headers {
		h.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, judged := llm.JudgeRecorded(ctx, dialect, kind, llm.Recorded{Status: in.Status, Header: h, Body: []byte(in.Response)})
	if judged == nil {
		return nil, fmt.Errorf("the llm stage accepts this %s answer for a %s item: nothing to classify", dialect, kind)
	}
	var bug *failure.Error
	if errors.As(judged, &bug) && bug.Class == failure.InternalBug && strings.Contains(bug.Reason, "not an HTTP status") {
		return nil, judged
	}
	return judged, nil
}

// responseDialect is the dialect of a response: the dialect field, a model
// provider, or what the body looks like.
func responseDialect(in classifyInput) (failure.Provider, error) {
	name := in.Dialect
	if name == "" && in.Provider != "" {
		if p := failure.Provider(in.Provider); p.IsModel() {
			name = in.Provider
		}
	}
	if name != "" {
		p := failure.Provider(strings.ToLower(strings.TrimSpace(name)))
		if !p.IsModel() {
			return "", fmt.Errorf("dialect %q is not openai, azure, anthropic or bedrock", name)
		}
		return p, nil
	}
	body := in.Response
	for k := range in.Headers {
		if strings.EqualFold(k, "X-Amzn-Errortype") || strings.EqualFold(k, "X-Amzn-Requestid") {
			return failure.Bedrock, nil
		}
	}
	switch {
	case strings.Contains(body, `"stopReason"`) || strings.Contains(body, `"output"`) && strings.Contains(body, `"message"`) &&
		!strings.Contains(body, `"choices"`):
		return failure.Bedrock, nil
	case strings.Contains(body, `"type":"message"`) || strings.Contains(body, `"type": "message"`) ||
		strings.Contains(body, "message_start") || strings.Contains(body, `"stop_reason"`) ||
		strings.Contains(body, `"type":"error"`) || strings.Contains(body, `"type": "error"`):
		return failure.Anthropic, nil
	}
	return failure.OpenAI, nil
}
