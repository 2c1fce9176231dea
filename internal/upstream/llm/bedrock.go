package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// BedrockOp is the Bedrock Runtime operation the client calls.
const BedrockOp = "Converse"

// ConverseAPI is the part of *bedrockruntime.Client the Bedrock client uses.
type ConverseAPI interface {
	Converse(ctx context.Context, in *bedrockruntime.ConverseInput, optFns ...func(*bedrockruntime.Options)) (*bedrockruntime.ConverseOutput, error)
}

// BedrockClient calls the Amazon Bedrock Runtime Converse API through the
// AWS SDK: SigV4 with the AWS config's credentials (the function's role),
// no API key. It is safe for concurrent use.
type BedrockClient struct {
	api     ConverseAPI
	timeout time.Duration
}

var _ Completer = (*BedrockClient)(nil)

// NewBedrock returns a Bedrock Converse client for cfg.AWS (required: its
// region and credentials), with the SDK's retries off — the queue is the one
// retry owner — and, when cfg.BaseURL is set, the SDK's endpoint overridden
// (a VPC endpoint, or the local fake). cfg.HTTPClient, when set, replaces
// the AWS config's HTTP client.
func NewBedrock(cfg Config) (*BedrockClient, error) {
	if cfg.AWS == nil {
		return nil, failure.New(work.InternalBug, "bedrock client has no AWS config")
	}
	if cfg.AWS.Region == "" {
		return nil, failure.New(work.InternalBug, "bedrock client has no AWS region")
	}
	endpoint := strings.TrimSpace(cfg.BaseURL)
	if endpoint != "" {
		if _, err := parseBaseURL(endpoint); err != nil {
			return nil, err
		}
	}
	api := bedrockruntime.NewFromConfig(*cfg.AWS, func(o *bedrockruntime.Options) {
		o.Retryer = aws.NopRetryer{}
		o.RetryMaxAttempts = 0
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		if cfg.HTTPClient != nil {
			o.HTTPClient = cfg.HTTPClient
		}
	})
	return &BedrockClient{api: api, timeout: timeoutOr(cfg.Timeout)}, nil
}

// Provider returns failure.Bedrock.
func (c *BedrockClient) Provider() failure.Provider { return failure.Bedrock }

// Complete sends one Converse request: system messages as system blocks,
// the others as text messages, MaxTokens and Temperature in the inference
// configuration, and the item and correlation ids as headers. A failure is
// the SDK's error — a *smithy.OperationError holding the service's typed
// exception (ThrottlingException, ModelTimeoutException, …) or the
// transport error — with the "upstream_status" and "request_id" details;
// failure.Classify reads the exception's code. An answer that is not a
// message is RESPONSE_INVALID.
func (c *BedrockClient) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest(req); err != nil {
		return Response{}, err
	}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(req.Model)}
	for _, m := range req.Messages {
		text := &types.ContentBlockMemberText{Value: m.Content}
		switch m.Role {
		case RoleSystem:
			in.System = append(in.System, &types.SystemContentBlockMemberText{Value: m.Content})
		case RoleAssistant:
			in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{text}})
		default:
			in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{text}})
		}
	}
	if len(in.Messages) == 0 {
		return Response{}, failure.New(work.InternalBug, "llm request has no user message")
	}
	if req.MaxTokens > 0 || req.Temperature != nil {
		in.InferenceConfig = &types.InferenceConfiguration{}
		if req.MaxTokens > 0 {
			in.InferenceConfig.MaxTokens = aws.Int32(int32(min(req.MaxTokens, 1<<30)))
		}
		if req.Temperature != nil {
			in.InferenceConfig.Temperature = aws.Float32(float32(*req.Temperature))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	out, err := c.api.Converse(ctx, in, func(o *bedrockruntime.Options) {
		if req.ItemID != "" {
			o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue(HeaderItemID, req.ItemID))
		}
		if req.CorrelationID != "" {
			o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue(HeaderCorrelationID, req.CorrelationID))
		}
	})
	if err != nil {
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			var de *smithy.DeserializationError
			if status := re.HTTPStatusCode(); status >= 200 && status <= 299 && errors.As(err, &de) &&
				failure.Classify(de.Err).Class != work.NetworkTimeout {
				// A 2xx whose body the SDK cannot read is no answer; one
				// the connection cut short is a transport failure.
				err = malformed(err)
			}
			err = reply{status: re.HTTPStatusCode(), requestID: truncateString(re.ServiceRequestID(), 128)}.detail(err)
		}
		return Response{}, err
	}
	return decodeConverse(out)
}

// decodeConverse maps a ConverseOutput onto a Response.
func decodeConverse(out *bedrockruntime.ConverseOutput) (Response, error) {
	r := Response{Provider: failure.Bedrock, StopReason: string(out.StopReason)}
	if id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); ok {
		r.RequestID = truncateString(id, 128)
	}
	answer := reply{status: 200, requestID: r.RequestID}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return Response{}, answer.detail(malformed(fmt.Errorf("output is %T, not a message", out.Output)))
	}
	var text strings.Builder
	for _, b := range msg.Value.Content {
		if t, ok := b.(*types.ContentBlockMemberText); ok {
			text.WriteString(t.Value)
		}
	}
	r.Content = text.String()
	if u := out.Usage; u != nil {
		r.Usage = Usage{
			InputTokens:  int(aws.ToInt32(u.InputTokens) + aws.ToInt32(u.CacheReadInputTokens) + aws.ToInt32(u.CacheWriteInputTokens)),
			OutputTokens: int(aws.ToInt32(u.OutputTokens)), Reported: true,
		}
	}
	r.Stop = stopOf(bedrockStops, r.StopReason)
	return r, nil
}
