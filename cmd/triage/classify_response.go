package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// responseError judges a model's HTTP response — usually an HTTP 200 whose
// answer is unusable — exactly as the llm stage does: llm.JudgeRecorded
// replays it through the dialect's real client (the AWS SDK for Bedrock)
// and the stage's judgement (stop reason, then the enrichment JSON and an
// action's ACTION_OUTCOME). Input fields:
//
//	response  the response body (a JSON answer, or a text/event-stream);
//	          or body, with a 2xx status, from a model endpoint (answerInput)
//	dialect   any model API's name: a known one selects its dialect
//	          (openai, azure, anthropic, bedrock, gemini, vertex, groq, …);
//	          else a model provider given as provider; else the body's shape;
//	          else OpenAI-compatible
//	status    the HTTP status; 0 is 200
//	headers   the response headers (Content-Type, X-Amzn-Errortype, …)
//	kind      story|document|action; default action when the body carries an
//	          ACTION_OUTCOME marker, story otherwise
//
// A usable answer is an error: the stage would not fail, so there is
// nothing to classify.
func responseError(in classifyInput) (error, error) {
	provider, dialect, err := responseDialect(in)
	if err != nil {
		return nil, err
	}
	kind := store.KindStory
	switch {
	case in.Kind != "":
		if kind, err = store.ParseKind(in.Kind); err != nil {
			return nil, err
		}
	case strings.Contains(strings.ToUpper(string(in.Response)), failure.ActionMarker):
		kind = store.KindAction
	}
	h := http.Header{}
	for k, v := range in.Headers {
		h.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, judged := llm.JudgeRecorded(ctx, provider, kind, llm.Recorded{Status: in.Status, Header: h, Body: []byte(in.Response)})
	if judged == nil {
		return nil, fmt.Errorf("the llm stage accepts this %s answer for a %s item: nothing to classify", dialect, kind)
	}
	var bug *failure.Error
	if errors.As(judged, &bug) && bug.Class == work.InternalBug && strings.Contains(bug.Reason, "not an HTTP status") {
		return nil, judged
	}
	return judged, nil
}

// responseDialect is the model API a response came from and its dialect:
// the dialect field, a model provider, an AWS request header, or what the
// body looks like; OpenAI-compatible when nothing says. A name triage does
// not know is kept (the errors name it) and read by the body's shape.
func responseDialect(in classifyInput) (provider, dialect failure.Provider, err error) {
	name, fromDialect := in.Dialect, true
	if strings.TrimSpace(name) == "" {
		name, fromDialect = in.Provider, false
	}
	if strings.TrimSpace(name) != "" {
		p, err := failure.ParseProvider(name)
		if err != nil {
			return "", "", err
		}
		switch r := p.Role(); {
		case r == failure.RoleModel:
			return p, p.Dialect(), nil
		case r == failure.RoleUnknown && p != failure.HTTP:
			provider = p // a name triage does not know: judged by the body's shape
		case fromDialect:
			return "", "", fmt.Errorf("dialect %q is not a model API's (openai, azure, anthropic, bedrock, gemini, or any OpenAI-compatible name)", name)
		}
	}
	for k := range in.Headers {
		if strings.EqualFold(k, "X-Amzn-Errortype") || strings.EqualFold(k, "X-Amzn-Requestid") {
			return orProvider(provider, failure.Bedrock), failure.Bedrock, nil
		}
	}
	d, ok := answerShape(string(in.Response))
	if !ok {
		d = failure.OpenAI
	}
	return orProvider(provider, d), d, nil
}

// orProvider is p, or the dialect's own name when p is empty. A provider
// triage does not know keeps its name only in the OpenAI-compatible
// dialect, the one an unknown name is read in; in another it is that
// dialect's.
func orProvider(p, dialect failure.Provider) failure.Provider {
	if p == "" || dialect != failure.OpenAI {
		return dialect
	}
	return p
}

// answerShape tells a model API's answer by its shape: a stream's first
// event, a JSON array's first element, or the object itself, whose keys
// say the dialect — choices (OpenAI and compatible), candidates or
// promptFeedback (Gemini, Vertex AI), output.message or stopReason
// (Bedrock Converse), a message with stop_reason (Anthropic). ok is false
// for anything else (an error body, text).
func answerShape(body string) (failure.Provider, bool) {
	b := strings.TrimSpace(body)
	if strings.HasPrefix(b, "data:") || strings.HasPrefix(b, "event:") {
		for _, line := range strings.Split(b, "\n") {
			if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.TrimSpace(data) != "[DONE]" {
				b = strings.TrimSpace(data)
				break
			}
		}
	}
	if strings.HasPrefix(b, "[") {
		var arr []json.RawMessage
		if json.Unmarshal([]byte(b), &arr) != nil || len(arr) == 0 {
			return "", false
		}
		b = string(arr[0])
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal([]byte(b), &keys) != nil {
		return "", false
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	var typ string
	_ = json.Unmarshal(keys["type"], &typ)
	switch {
	case has("candidates"), has("promptFeedback"):
		return failure.Gemini, true
	case has("choices"):
		return failure.OpenAI, true
	case has("stopReason"), has("output") && bytes.Contains(keys["output"], []byte(`"message"`)):
		return failure.Bedrock, true
	case has("stop_reason"), typ == "message", typ == "message_start", typ == "content_block_delta":
		return failure.Anthropic, true
	}
	return "", false
}
