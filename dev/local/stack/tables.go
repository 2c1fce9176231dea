package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
)

// tableCreateProperty lists the AWS::DynamoDB::Table properties that
// CreateTable takes under the same name and shape.
var tableCreateProperty = map[string]bool{
	"AttributeDefinitions": true, "KeySchema": true, "GlobalSecondaryIndexes": true,
	"LocalSecondaryIndexes": true, "BillingMode": true, "ProvisionedThroughput": true,
}

// tableLaterProperty lists the properties applied after creation
// (fillMotoGaps: TTL, point-in-time recovery) or with no effect on a local
// table (encryption at rest, tags, deletion protection).
var tableLaterProperty = map[string]bool{
	"TableName": true, "TimeToLiveSpecification": true, "PointInTimeRecoverySpecification": true,
	"SSESpecification": true, "Tags": true, "DeletionProtectionEnabled": true,
}

// createTables makes sure the DynamoDB that answers at the stack's endpoint
// holds the stack's tables. moto's CloudFormation creates them in moto's
// own DynamoDB; the local stack's DynamoDB is package dynamo in front of
// moto, which CloudFormation does not reach, so each table it lacks is
// created there under the name moto gave it, with its keys and indexes as
// template.yaml declares them. A table the endpoint already has (moto's own
// DynamoDB answering) is left as it is.
func (s *Stack) createTables(ctx context.Context, db *dynamodb.Client, tplPath string) error {
	tables, err := templateResources(ctx, s, tplPath, "AWS::DynamoDB::Table", "table",
		func(r *template.Resolver, _, physical string, props map[string]any) (*dynamodb.CreateTableInput, error) {
			return resolveTable(r, physical, props)
		})
	if err != nil {
		return err
	}
	for _, in := range tables {
		_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName})
		var missing *ddbtypes.ResourceNotFoundException
		switch {
		case err == nil:
			continue
		case !errors.As(err, &missing):
			return fmt.Errorf("table %s: %w", aws.ToString(in.TableName), err)
		}
		if _, err := db.CreateTable(ctx, in); err != nil {
			return fmt.Errorf("create table %s in the local DynamoDB: %w", aws.ToString(in.TableName), err)
		}
		s.tables = append(s.tables, aws.ToString(in.TableName))
	}
	return nil
}

// resolveTable turns a table's template properties into CreateTable's
// input. The properties CreateTable shares with CloudFormation have the
// SDK's member names, so they decode into its types as they are.
func resolveTable(r *template.Resolver, name string, props map[string]any) (*dynamodb.CreateTableInput, error) {
	create := map[string]any{}
	for _, prop := range slices.Sorted(maps.Keys(props)) {
		switch {
		case tableCreateProperty[prop]:
			v, err := r.Resolve(props[prop])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", prop, err)
			}
			create[prop] = v
		case tableLaterProperty[prop]:
		default:
			return nil, fmt.Errorf("property %s is not one the local stack knows how to create", prop)
		}
	}
	b, err := json.Marshal(create)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.CreateTableInput{}
	if err := json.Unmarshal(b, in); err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	in.TableName = aws.String(name)
	return in, nil
}

// deleteTables deletes the tables createTables created; moto's
// CloudFormation deletes its own.
func (s *Stack) deleteTables(ctx context.Context, db *dynamodb.Client) error {
	for _, name := range s.tables {
		_, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var missing *ddbtypes.ResourceNotFoundException
		if err != nil && !errors.As(err, &missing) {
			return fmt.Errorf("delete table %s: %w", name, err)
		}
	}
	s.tables = nil
	return nil
}

// templateResources resolves each of the stack's resources of type typ, in
// logical-id order, with resolve: the queues' attributes, the tables'
// CreateTable inputs. A resource whose Condition is false has no physical
// id and is passed over.
func templateResources[T any](ctx context.Context, s *Stack, tplPath, typ, what string,
	resolve func(r *template.Resolver, id, physical string, props map[string]any) (T, error)) ([]T, error) {
	tpl, err := template.ParseFile(tplPath)
	if err != nil {
		return nil, err
	}
	info, err := cfnstack.DescribeResources(ctx, s.cfn, s.Name)
	if err != nil {
		return nil, err
	}
	r, err := template.StackResolver(tpl, info)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, id := range slices.Sorted(maps.Keys(tpl.Resources)) {
		res := tpl.Resources[id]
		phys := info.Physical[id]
		if res.Type != typ || phys == "" {
			continue
		}
		v, err := resolve(r, id, phys, res.Properties)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, id, err)
		}
		out = append(out, v)
	}
	return out, nil
}
