package rulesets

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBuiltinRulesetsLoadAndEveryEntryHasASource(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Appliers) == 0 || len(rs.Humans) == 0 || len(rs.Calculated) == 0 || len(rs.Injected) == 0 || len(rs.Admission) == 0 || len(rs.ClusterScoped) == 0 {
		t.Fatalf("a section is empty: %+v", rs)
	}
	for _, f := range rs.Calculated {
		if f.Source == "" || f.Kind == "" {
			t.Errorf("calculated entry without kind or source: %+v", f)
		}
	}
	for _, a := range rs.Admission {
		if a.Plugin == "" || a.Kind == "" || !strings.HasPrefix(a.Source, "plugin/pkg/admission/") {
			t.Errorf("admission entry without plugin, kind or a source path in k8s.io/kubernetes: %+v", a)
		}
	}
	strategy, _ := rs.DeployOption("--apply-default-update-strategy")
	if _, ok := rs.DeployOption("--wait-timeout"); !ok || slices.Contains(strategy.Values, "skip") || slices.Contains(strategy.Values, "plain") || !slices.Contains(strategy.Values, "fallback-on-replace") {
		t.Error("deployOptions: --wait-timeout must hold, a skip or plain update strategy must not (kapp v0.66.0 knows no plain: \"\" is its plain), fallback-on-replace must")
	}
	if _, ok := rs.DeployOption("--filter-kind"); ok {
		t.Error("deployOptions: a filter must not hold")
	}
	for _, o := range rs.DeployOptions {
		if o.Source == "" || !strings.HasPrefix(o.Flag, "--") {
			t.Errorf("deploy option without a --flag or a source: %+v", o)
		}
		for _, d := range []string{o.MinDuration, o.MaxDuration} {
			if _, err := time.ParseDuration(d); d != "" && err != nil {
				t.Errorf("deploy option %s: %v", o.Flag, err)
			}
		}
	}
	for _, d := range rs.Dependent {
		if d.Source == "" || d.Kind == "" {
			t.Errorf("dependent default without kind or source: %+v", d)
		}
	}
	for _, m := range append(append(rs.Appliers, rs.Humans...), rs.Controllers...) {
		if m.Source == "" {
			t.Errorf("manager without source: %+v", m)
		}
	}
}

func TestPathPattern(t *testing.T) {
	re, err := PathPattern("spec.ports[*].nodePort")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"spec.ports[port=80,protocol=TCP].nodePort": true,
		"spec.ports[0].nodePort":                    true,
		"spec.ports[0].nodePortX":                   false,
		"spec.ports[0].port":                        false,
	} {
		if re.MatchString(path) != want {
			t.Errorf("%s: want %v", path, want)
		}
	}
}

// A quoted key ending in * is a prefix of map keys (a Pod's AppArmor annotations, one per
// container: fix28f).
func TestPathPatternKeyPrefix(t *testing.T) {
	re, err := PathPattern(`metadata.annotations["container.apparmor.security.beta.kubernetes.io/*"]`)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		`metadata.annotations["container.apparmor.security.beta.kubernetes.io/app"]`: true,
		`metadata.annotations["container.apparmor.security.beta.kubernetes.io/"]`:    true,
		`metadata.annotations["container.apparmor.security.beta.kubernetes.io"]`:     false,
		`metadata.annotations["example.com/container.apparmor"]`:                     false,
		`metadata.annotations`: false,
	} {
		if re.MatchString(path) != want {
			t.Errorf("%s: want %v", path, want)
		}
	}
}

func TestUserRulesetWithUnknownKeyIsAnError(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	err = rs.Add("mine.yaml", []byte("calculated:\n- {group: apps, kind: Deployment, path: spec.x, source: me, sorce: typo}\n"))
	if err == nil || !strings.Contains(err.Error(), "mine.yaml") || !strings.Contains(err.Error(), "sorce") {
		t.Fatalf("want error naming file and key, got %v", err)
	}
}

// FindWrite: the narrowest entry of the manager's name that the write's operation and
// subresource match, an exact name before a binary's prefixed one.
func TestFindWrite(t *testing.T) {
	ms := []Manager{{Name: "tool", Source: "any"}, {Name: "tool", Operation: "Update", Subresource: "scale", Source: "scale"},
		{Name: "tool", Operation: "Apply", Source: "apply"}, {Name: "bin", Binary: true, Source: "binary"}, {Name: "bin-x", Source: "exact"}}
	for _, tc := range []struct{ name, operation, subresource, want string }{
		{"tool", "Update", "scale", "scale"}, {"tool", "Apply", "", "apply"}, {"tool", "Update", "", "any"}, {"tool", "Update", "status", "any"},
		{"bin-linux-amd64", "Update", "", "binary"}, {"bin-x", "Update", "", "exact"}, {"other", "Apply", "", ""},
	} {
		m, ok := FindWrite(ms, tc.name, tc.operation, tc.subresource)
		if m.Source != tc.want || ok != (tc.want != "") {
			t.Errorf("FindWrite(%s, %s, %s) = %q, %v; want %q", tc.name, tc.operation, tc.subresource, m.Source, ok, tc.want)
		}
	}
}
