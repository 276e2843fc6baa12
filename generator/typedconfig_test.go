package generator_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/synth"
	"github.com/rebasegen/rebasegen/internal/kappglobal"
)

// The typed Config the verdict stage judges (emit.Config) is the Config kapp's own parser reads
// from the file generate writes, for the rules of every captured scenario, with and without
// unknown fields ruled: the mutation check judges what kapp will apply.
func TestTypedConfigIsWhatKappReads(t *testing.T) {
	kappglobal.Prepare() // a real kapp version for minimumRequiredVersion
	for _, s := range scenarios(t) {
		t.Run(s.Name, func(t *testing.T) {
			for _, opts := range []synth.Options{{}, {IncludeUnknown: true}} {
				g, err := generator.Synthesize(inputs(s), opts)
				if err != nil {
					t.Fatal(err)
				}
				typed, err := emit.Config(g.Rules)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				if err := emit.WriteRules(&b, g.Rules, emit.Header{Version: "test"}); err != nil {
					t.Fatal(err)
				}
				rs, err := ctlres.NewResourcesFromBytes([]byte(b.String()))
				if err != nil || len(rs) != 1 {
					t.Fatalf("kapp reads %d resources (%v) from\n%s", len(rs), err, b.String())
				}
				parsed, err := ctlconf.NewConfigFromResource(rs[0])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(typed, parsed) {
					t.Errorf("%+v: emit.Config\n%s\nkapp reads\n%s\nfrom\n%s", opts, jsonOf(t, typed), jsonOf(t, parsed), b.String())
				}
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
