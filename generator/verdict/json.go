package verdict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// JSON is check --output json (README: the schema; TestCheckJSONSchema holds it to it).
type JSON struct {
	Version  int         `json:"version"`
	Residual []FieldJSON `json:"residual"`
	Stale    []StaleJSON `json:"stale"`
	Drift    []FieldJSON `json:"drift"`
	Unknown  []FieldJSON `json:"unknown"`
	// Hidden are declared fields whose change made in Git a rule hides from kapp.
	Hidden []FieldJSON `json:"hidden"`
	// PendingCreates are desired objects with no live counterpart: not compared; kapp creates them.
	PendingCreates []FieldJSON    `json:"pendingCreates"`
	Paired         int            `json:"paired"`
	Kept           int            `json:"kept"`
	Adoption       []FieldJSON    `json:"adoption,omitempty"` // one-time changes when kapp takes objects over
	Lint           []lint.Finding `json:"lint"`

	// Pending are changes made in Git that kapp applies on deploy: warnings, never drift.
	Pending []FieldJSON `json:"pending"`
	// Immutable are changes made in Git to fields the API server refuses to change: kapp's
	// deploy fails on them.
	Immutable []FieldJSON `json:"immutable"`
	// PendingDeletes are live objects of the app with no desired counterpart: kapp deletes them.
	PendingDeletes []FieldJSON `json:"pendingDeletes"`
	// ServerVersion: the live objects come from a minor version rebasegen has no defaults data
	// for (evidence names it and the version used instead); no resource.
	ServerVersion []FieldJSON `json:"serverVersion"`
	// Unjudged are Secrets whose values rebasegen capture redacted: never compared, not kept.
	Unjudged []FieldJSON `json:"unjudged"`
	// RulesUnjudged are hand-written ytt rules deciding, on a resource, on values the mutation
	// check does not vary, with the rule's file and line: they fail the gate.
	RulesUnjudged []FieldJSON `json:"rulesUnjudged"`
	// Ownership are live objects labelled as another kapp app's: kapp's deploy fails on them.
	Ownership []FieldJSON `json:"ownership"`
	// DeployFails are resources whose change groups, rules, update strategy, wait rule or preflight rules kapp's deploy fails on.
	DeployFails []FieldJSON `json:"deployFails"`
	// Unserved are manifests' apiVersions at which the API server does not serve the kind:
	// kapp's deploy fails on them.
	Unserved []FieldJSON `json:"unserved"`
}

// FieldJSON is one finding in JSON.
type FieldJSON struct {
	Resource string `json:"resource,omitempty"` // none for serverVersion
	Path     string `json:"path,omitempty"`
	Class    string `json:"class,omitempty"`
	Evidence string `json:"evidence"`
	// File and Line: where the finding is located, as the github format annotates it (place):
	// the rule hiding a change, or not judged (hidden, rulesUnjudged); where a drift, a pending
	// change or create, or a change kapp's deploy fails on was made (the desired document or
	// template, a values file's line). Absent where none is known (a pending delete: no file
	// holds it).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Severity: error when the finding fails the gate (drift with --fail-on-drift, adoption with
	// --fail-on-adoption, a pending create or delete with --fail-on-create or --fail-on-delete),
	// else warning; drift, adoption, pending creates and deletes only (every finding of the Argo CD
	// target: Report.Severity).
	Severity string `json:"severity,omitempty"`
	// Original, Desired and Live: a field changed both in Git and on the cluster, in its drift
	// and its pending change alike (Finding.Values); absent for any other finding.
	Original *any `json:"original,omitempty"`
	Desired  *any `json:"desired,omitempty"`
	Live     *any `json:"live,omitempty"`
}

// StaleJSON is one stale generated file in JSON.
type StaleJSON struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Diff string `json:"diff"`
	// Inputs: those its Regenerate line records that this check did not give, and those this
	// check gave that it does not record.
	Inputs []string `json:"inputs,omitempty"`
}

// NewJSON is r in the JSON format's schema: each finding in its kind's list.
func NewJSON(r Report) (JSON, error) {
	j := JSON{Version: 1, Residual: []FieldJSON{}, Drift: []FieldJSON{}, Unknown: []FieldJSON{}, Stale: []StaleJSON{}, Lint: r.Lints,
		Paired: r.Paired, Kept: r.Kept, PendingCreates: []FieldJSON{}, Hidden: []FieldJSON{}, Pending: []FieldJSON{}, Immutable: []FieldJSON{}, PendingDeletes: []FieldJSON{}, ServerVersion: []FieldJSON{}, Unjudged: []FieldJSON{}, RulesUnjudged: []FieldJSON{},
		Ownership: []FieldJSON{}, DeployFails: []FieldJSON{}, Unserved: []FieldJSON{}}
	if j.Lint == nil {
		j.Lint = []lint.Finding{}
	}
	for _, f := range r.Findings {
		fj := FieldJSON{Resource: f.Resource.String(), Path: f.Path, Class: f.Class, Evidence: f.Evidence}
		fj.File, fj.Line, _ = place(f) // where -o github annotates it, but the rules file it falls back on
		if w := f.Values; w != nil {
			fj.Original, fj.Desired, fj.Live = w.Original, w.Desired, w.Live
		}
		if r.Severity {
			fj.Severity = severity(f)
		}
		switch f.Kind {
		case KindResidual:
			j.Residual = append(j.Residual, fj)
		case KindPendingDelete:
			fj.Severity = severity(f)
			j.PendingDeletes = append(j.PendingDeletes, fj)
		case KindPendingCreate:
			fj.Severity = severity(f)
			j.PendingCreates = append(j.PendingCreates, fj)
		case KindUnknown:
			j.Unknown = append(j.Unknown, fj)
		case KindHidden:
			j.Hidden = append(j.Hidden, fj)
		case KindStale:
			j.Stale = append(j.Stale, StaleJSON{File: f.File, Line: f.Line, Diff: f.Diff, Inputs: f.Inputs})
		case KindDrift:
			fj.Severity = severity(f)
			j.Drift = append(j.Drift, fj)
		case KindPending:
			j.Pending = append(j.Pending, fj)
		case KindImmutable:
			j.Immutable = append(j.Immutable, fj)
		case KindAdoption:
			fj.Severity = severity(f)
			j.Adoption = append(j.Adoption, fj)
		case KindServerVersion:
			fj.Resource, fj.Severity = "", severity(f)
			j.ServerVersion = append(j.ServerVersion, fj)
		case KindUnjudged:
			j.Unjudged = append(j.Unjudged, fj)
		case KindRuleUnjudged:
			j.RulesUnjudged = append(j.RulesUnjudged, fj)
		case KindOwnership:
			j.Ownership = append(j.Ownership, fj)
		case KindDeployFails:
			j.DeployFails = append(j.DeployFails, fj)
		case KindUnserved:
			j.Unserved = append(j.Unserved, fj)
		default:
			return JSON{}, fmt.Errorf("no json rendering for findings of kind %q", f.Kind)
		}
	}
	return j, nil
}

// EncodeJSON writes v (a JSON, or a target's schema holding one) as every JSON output is written:
// indented, escaped (escape.JSON).
func EncodeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(b.Bytes()))
	return err
}
