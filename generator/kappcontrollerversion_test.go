package generator_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kapputil "carvel.dev/kapp/pkg/kapp/util"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/lint"
	"github.com/rebasegen/rebasegen/generator/yttrender"
)

// probe13 P13-5: check --package-cr renders the Package as kapp-controller v0.51.0 runs it, and
// kapp-controller deploys it with kapp v0.62.0, which refuses a Config requiring kapp 0.66.0:
// nothing of the package is applied. check said 0 lint errors, exit 0; the rule file's
// minimumRequiredVersion is a lint error (exit 4) naming its line and both versions.
func TestCheckPackageCRJudgesTheConfigByKappControllersKapp(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	rules := writeFile(t, "rules.yml", "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config\nminimumRequiredVersion: 0.66.0\nrebaseRules: []\n")
	in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
		Package: yttrender.Package{CR: filepath.Join(pkg, "package.yml"), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
	c, err := generator.Check(in, []string{rules})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Lint, func(f lint.Finding) bool {
		return f.Severity == lint.Error && f.File == rules && f.Line == 3 && strings.Contains(f.Message, "kapp v0.62.0") && strings.Contains(f.Message, "'0.66.0'")
	}) {
		t.Errorf("no lint error on minimumRequiredVersion at %s:3: %+v", rules, c.Lint)
	}
}

// The package's own Configs are kapp-controller's too: a Package holding a Config (or a labelled
// ConfigMap) requiring kapp 0.66.0 is deployed by none of kapp-controller v0.51.0's syncs (its
// kapp v0.62.0 refuses it), which every command said nothing of. The oracle that kapp v0.62.0
// refuses 0.66.0 and accepts 0.60.0 is kapp's own validation (TestRefusedVersionIsKappsValidate).
func TestPackageCRsOwnConfigJudgedByKappControllersKapp(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	data, err := os.ReadFile(filepath.Join(pkg, "package.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ config, want string }{
		"Config": {"apiVersion: kapp.k14s.io/v1alpha1\n              kind: Config\n              minimumRequiredVersion: 0.66.0\n              rebaseRules: []",
			"(line 45): field minimumRequiredVersion: kapp-controller v0.51.0 deploys the package with kapp v0.62.0, which rejects the Config (no change of the package is applied): kapp version '0.62.0' does not meet the minimum required version '0.66.0' (kapp v0.66.0, which rebasegen embeds, accepts it)"},
		"labelled ConfigMap, keys in another case": {"apiVersion: v1\n              kind: ConfigMap\n              metadata: {name: kapp-config, labels: {kapp.k14s.io/config: \"\"}}\n              data:\n                config.yml: |\n                  apiVersion: kapp.k14s.io/v1alpha1\n                  kind: Config\n                  MinimumRequiredVersion: 0.66.0",
			"field data.config.yml minimumRequiredVersion: kapp-controller v0.51.0 deploys the package with kapp v0.62.0"},
		"Config kapp v0.62.0 accepts": {"apiVersion: kapp.k14s.io/v1alpha1\n              kind: Config\n              minimumRequiredVersion: 0.60.0\n              rebaseRules: []", ""},
	} {
		t.Run(name, func(t *testing.T) {
			cr := strings.Replace(string(data), "            config/app.yml: |\n", "            config/kapp-config.yml: |\n              "+c.config+"\n            config/app.yml: |\n", 1)
			if cr == string(data) {
				t.Fatal("the Package CR was not edited")
			}
			in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
				Package: yttrender.Package{CR: writeFile(t, "package.yml", cr), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
			_, err := generator.Analyze(in)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want no error, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("want an error holding %q, got %v", c.want, err)
			}
		})
	}
}

// probe14 P14-3: kapp-controller v0.51.0 checks a rawOption's name alone and passes the element
// to kapp deploy as ONE argument; kapp refuses a value its flag does not take, and no change of
// the package is applied. Every command said nothing (check exit 0); an allowed name with a value
// kapp refuses is now an input error naming the file, line, field and kapp's own message. The
// oracle is kapp v0.66.0 itself (`kapp deploy ... "--wait-timeout=soon"`: 'invalid argument
// "soon" for "--wait-timeout" flag: time: invalid duration "soon"', probe14's repro).
func TestPackageCRRawOptionKappRefusesIsNamed(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	data, err := os.ReadFile(filepath.Join(pkg, "package.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ options, want string }{
		{`["--diff-context=2 --filter-kind=HorizontalPodAutoscaler"]`, `package.yml: document 1 (line 75): spec.template.spec.deploy[0].kapp.rawOptions[0]: kapp deploy refuses "--diff-context=2 --filter-kind=HorizontalPodAutoscaler" (no change of the package is applied): invalid argument "2 --filter-kind=HorizontalPodAutoscaler" for "--diff-context" flag: strconv.ParseInt`},
		{`[--wait-timeout=5m, --wait-timeout=soon]`, `spec.template.spec.deploy[0].kapp.rawOptions[1]: kapp deploy refuses "--wait-timeout=soon" (no change of the package is applied): invalid argument "soon" for "--wait-timeout" flag: time: invalid duration "soon"`},
		{`[--kube-api-qps=fast]`, `rawOptions[0]: kapp deploy refuses "--kube-api-qps=fast"`}, // a global flag of kapp's
		// values under which kapp diffs or applies otherwise, as kapp reads them: skip applies
		// nothing; with the existing objects check off kapp never lists the unlabelled objects it
		// would take over and creates them, which the API server refuses (kapp v0.66.0
		// labeled_resources.go AllAndMatching); F and 0 are kapp's false too
		{`[--wait-timeout=5m, --apply-default-update-strategy=skip]`, `spec.template.spec.deploy[0].kapp.rawOptions[1]: --apply-default-update-strategy=skip changes which resources kapp diffs or what it applies`},
		{`[--existing-non-labeled-resources-check=0]`, `rawOptions[0]: --existing-non-labeled-resources-check=0 changes`},
		{`[--existing-non-labeled-resources-check=F]`, `rawOptions[0]: --existing-non-labeled-resources-check=F changes`},
		// probe17 P17-4: values kapp parses but then fails on (kapp v0.66.0 binary: "Building Core
		// clientset: burst is required to be greater than 0 ..."); a negative number of changes
		// to keep panics in kapp's GC of app changes after the apply
		{`[--kube-api-burst=0]`, `rawOptions[0]: kapp deploy fails with --kube-api-burst=0`},
		{`[--app-changes-max-to-keep=-1]`, `rawOptions[0]: kapp deploy fails with --app-changes-max-to-keep=-1`},
		// probe17 P17-4: a wait timeout kapp parses, under which every deploy that changes a
		// Deployment fails (kapp v0.66.0 binary on kube-apiserver v1.37.2: "Timed out waiting
		// after 1ns for resources: [deployment/web ...]", a later change group not applied); 0s
		// is no time at all for kapp, not no limit
		{`[--wait-timeout=1ns]`, `rawOptions[0]: kapp deploy fails with --wait-timeout=1ns whenever a resource it applies is not done at once`},
		{`[--wait-timeout=0s]`, `rawOptions[0]: kapp deploy fails with --wait-timeout=0s`},
		{`[--wait-timeout=999ms]`, `rawOptions[0]: kapp deploy fails with --wait-timeout=999ms`},
		// probe19 P19-1: values kapp parses under which it never gets to apply later changes (kapp
		// v0.66.0 binary on kube-apiserver v1.37.2: one ConfigMap still deploying after 60 s at
		// qps 0.0001, burst 1; a 1000h sleep between looks while a Deployment rolls out)
		{`[--kube-api-qps=0.0001, --kube-api-burst=1]`, `rawOptions[0]: kapp deploy fails with --kube-api-qps=0.0001 (no change of the package is applied): --kube-api-qps is at least 1 for kapp`},
		{`[--kube-api-qps=1e-30]`, `rawOptions[0]: kapp deploy fails with --kube-api-qps=1e-30`},
		{`[--wait-check-interval=1000h]`, `rawOptions[0]: kapp deploy sleeps 1000h0m0s between looks at the resources it applies while one is not done (a Deployment rolling out), and the changes of later change groups wait that long: --wait-check-interval is at most 15m0s for kapp`},
		{`[--apply-check-interval=16m]`, `rawOptions[0]: kapp deploy sleeps 16m0s between looks`},
		{`[--diff-context=2, --wait-timeout=90s, --kube-api-qps=20.5, --json=false, --existing-non-labeled-resources-check=T, --apply-default-update-strategy=fallback-on-replace, --apply-concurrency=1, --wait-concurrency=0x10, --kube-api-burst=1, --app-changes-max-to-keep=0, --wait-timeout=1s, --kube-api-qps=1, --wait-check-interval=15m, --apply-check-interval=2s]`, ""},
	} {
		cr := strings.Replace(string(data), "      - kapp: {}\n", "      - kapp:\n          rawOptions: "+c.options+"\n", 1)
		if cr == string(data) {
			t.Fatal("the Package CR was not edited")
		}
		in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
			Package: yttrender.Package{CR: writeFile(t, "package.yml", cr), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
		_, err := generator.Check(in, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: want no error, got %v", c.options, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: want an error holding %q, got %v", c.options, c.want, err)
		}
	}
}

// probe16 P16-1: a concurrency rawOption below 1 passed kapp's flag parsing (an int) and was
// allowed by name, so check exited 0, while kapp deploy panics on it (before applying anything,
// or after the first apply for --wait-concurrency). It is refused naming the option; 1 and more
// pass (TestPackageCRRawOptionKappRefusesIsNamed). The oracle is kapp's own throttle
// (util.NewThrottle), given the number kapp reads.
func TestRawOptionConcurrencyKappPanicsOnIsRefused(t *testing.T) {
	pkg := filepath.Join("..", "fixtures", "packages", "hpa-web")
	data, err := os.ReadFile(filepath.Join(pkg, "package.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--apply-concurrency", "--wait-concurrency", "--existing-non-labeled-resources-check-concurrency"} {
		for _, tc := range []struct {
			value string
			n     int
		}{{"0", 0}, {"-3", -3}, {"0x0", 0}} {
			kappPanics := func() (p bool) {
				defer func() { p = recover() != nil }()
				kapputil.NewThrottle(tc.n)
				return false
			}()
			if !kappPanics {
				t.Fatalf("%d: kapp takes it; the test's values are those kapp panics on", tc.n)
			}
			o := flag + "=" + tc.value
			cr := strings.Replace(string(data), "      - kapp: {}\n", "      - kapp:\n          rawOptions: [--wait-timeout=5m, \""+o+"\"]\n", 1)
			in := generator.Inputs{Live: []string{filepath.Join("..", "fixtures", "hpa-replicas", "live.yaml")}, Namespace: "hpa-replicas",
				Package: yttrender.Package{CR: writeFile(t, "package.yml", cr), ValuesFiles: []string{filepath.Join(pkg, "values.yml")}}}
			_, err := generator.Check(in, nil)
			if want := "spec.template.spec.deploy[0].kapp.rawOptions[1]: kapp deploy fails with " + o; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: kapp panics; got %v, want an error holding %q", o, err, want)
			}
		}
	}
}
