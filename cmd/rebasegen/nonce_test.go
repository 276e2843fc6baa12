package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ctlapp "carvel.dev/kapp/pkg/kapp/app"
	ctlres "carvel.dev/kapp/pkg/kapp/resources"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/generator/load"
)

// A manifest declaring kapp.k14s.io/nonce: "" (kapp's way to have every deploy update the
// resource), checked against the captured hpa-replicas objects as kapp's deploy of it leaves them
// (the value kapp wrote in the live object and in kapp.k14s.io/original): check and generate exited
// 1 with kapp's "Expected annotation 'kapp.k14s.io/nonce' ... to have value ”", naming no file,
// and explain showed the nonce as "pending -> <live value>" (probe9 P9-1). kapp's own
// Preparation is the oracle that it writes a new value there; check reports it as the change
// every deploy makes, naming the annotation and the manifest's document, and does not call the
// Deployment kept; any other value is an input error naming the document.
func TestNonceEmptyInTheManifestIsKappsUpdateOnEveryDeploy(t *testing.T) {
	const written = "1764100000000000000"
	fix := scenario(t, "hpa-replicas")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yml")
	if r := rebasegen(t, append([]string{"generate", "--output-file", rules}, fix...)...); r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	write := func(name, from string, edits ...string) string {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for i := 0; i < len(edits); i += 2 {
			if !strings.Contains(s, edits[i]) {
				t.Fatalf("%s: no %q", from, edits[i])
			}
			s = strings.Replace(s, edits[i], edits[i+1], 1)
		}
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	manifest := func(value string) string {
		return write("desired-"+value+".yaml", fix[1], "metadata:\n  name: web\n  labels:", "metadata:\n  name: web\n  annotations:\n    kapp.k14s.io/nonce: \""+value+"\"\n  labels:")
	}
	desired := manifest("")
	live := write("live.yaml", fix[3], `    deployment.kubernetes.io/revision: "1"`+"\n", `    deployment.kubernetes.io/revision: "1"`+"\n    kapp.k14s.io/nonce: \""+written+"\"\n",
		`"metadata":{"labels":{"app.kubernetes.io/name":"web","kapp.k14s.io/app"`, `"metadata":{"annotations":{"kapp.k14s.io/nonce":"`+written+`"},"labels":{"app.kubernetes.io/name":"web","kapp.k14s.io/app"`)

	// the oracle: kapp's deploy preparation writes a value of its own, never the one it wrote before
	res := ctlres.NewResourceUnstructured(*objectNamed(t, desired, "Deployment"), ctlres.ResourceType{})
	rs, err := ctlapp.NewPreparation(nsTypes{res}, ctlapp.PrepareResourcesOpts{
		BeforeModificationFunc: func(rs []ctlres.Resource) []ctlres.Resource { return rs }}).PrepareResources([]ctlres.Resource{res})
	if err != nil {
		t.Fatalf("kapp's preparation: %v", err)
	}
	if v := rs[0].Annotations()["kapp.k14s.io/nonce"]; v == "" || v == written {
		t.Fatalf("kapp's preparation left the nonce %q", v)
	}

	const field = `apps/Deployment hpa-replicas/web metadata.annotations["kapp.k14s.io/nonce"]`
	args := []string{"-d", desired, "-l", live, "-n", "hpa-replicas"}
	r := rebasegen(t, append([]string{"check", "--rules", rules}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "pending change from Git (kapp applies it on deploy): "+field+": the manifest ("+desired+": document 1 (line 1))") ||
		!strings.Contains(r.stdout, "kapp keeps 1/2 paired resources") {
		t.Errorf("check: want exit 0, the nonce a change of every deploy naming the document, the Deployment not kept; got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = rebasegen(t, append([]string{"check", "--rules", rules, "-o", "json"}, args...)...)
	var j struct {
		Kept    int
		Pending []fieldJSON
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Kept != 1 || len(j.Pending) != 1 || !strings.Contains(j.Pending[0].Evidence, desired) {
		t.Errorf("check json: want the nonce pending, 1 kept, got %v:\n%s%s", err, r.stdout, r.stderr)
	}
	if r := rebasegen(t, append([]string{"generate", "-q", "--output-file", filepath.Join(dir, "new.yml")}, args...)...); r.code != 0 {
		t.Errorf("generate: exit %d:\n%s", r.code, r.stderr)
	}
	r = rebasegen(t, append([]string{"explain", "--wide"}, args...)...)
	line := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "kapp.k14s.io/nonce") {
			line = l
		}
	}
	if r.code != 0 || !strings.Contains(line, "(new on every deploy) -> "+written) {
		t.Errorf("explain: want the nonce as what kapp writes -> the live value, got exit %d: %q\n%s", r.code, line, r.stderr)
	}

	bad := manifest("abc")
	r = rebasegen(t, "check", "--rules", rules, "-d", bad, "-l", live, "-n", "hpa-replicas")
	if r.code != 1 || !strings.Contains(r.stderr, bad+": document 1 (line 1)") {
		t.Errorf("a nonce other than \"\": want an input error naming the document, got %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// nsTypes: the kind of one resource, namespaced, for kapp's preparation offline.
type nsTypes struct{ r ctlres.Resource }

func (t nsTypes) All(bool) ([]ctlres.ResourceType, error) {
	gv := t.r.GroupVersion()
	return []ctlres.ResourceType{{GroupVersionResource: gv.WithResource("resources"),
		APIResource: metav1.APIResource{Group: gv.Group, Version: gv.Version, Kind: t.r.Kind(), Namespaced: true}}}, nil
}
func (t nsTypes) Find(ctlres.Resource) (ctlres.ResourceType, error) {
	all, err := t.All(false)
	return all[0], err
}
func (nsTypes) CanIgnoreFailingGroupVersion(schema.GroupVersion) bool { return false }

// objectNamed is the object of kind in file, its namespace hpa-replicas, as -n gives it.
func objectNamed(t *testing.T, file, kind string) *unstructured.Unstructured {
	t.Helper()
	objs, err := load.Paths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() == kind {
			o.SetNamespace("hpa-replicas")
			return o.Unstructured
		}
	}
	t.Fatalf("%s: no %s", file, kind)
	return nil
}
