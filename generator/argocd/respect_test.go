package argocd_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argodiff "github.com/argoproj/argo-cd/v3/util/argo/diff"
	"github.com/argoproj/argo-cd/v3/util/argo/normalizers"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator"
	"github.com/rebasegen/rebasegen/generator/argocd"
	"github.com/rebasegen/rebasegen/generator/verdict"
)

// syncApplies is the Deployment Argo CD v3.6.1's sync applies for desired over live under
// ignores, the oracle of what reaches the cluster, from Argo CD's own code: without the sync
// option RespectIgnoreDifferences=true the manifest as it is (controller/sync.go applies
// reconciliationResult.Target); with it, normalizeTargetResources' steps: util/argo/diff.Normalize
// of both objects under the comparison's ignores, the strategic merge patch from the normalized
// live object to the live one (status left out), applied to the normalized manifest.
func syncApplies(t *testing.T, desired, live *unstructured.Unstructured, ignores []v1alpha1.ResourceIgnoreDifferences, respect bool) map[string]any {
	t.Helper()
	if !respect {
		return desired.Object
	}
	dc, err := argodiff.NewDiffConfigBuilder().WithDiffSettings(ignores, nil, false, normalizers.IgnoreNormalizerOpts{}).
		WithTracking("", "annotation").WithNoCache().Build()
	if err != nil {
		t.Fatal(err)
	}
	n, err := argodiff.Normalize([]*unstructured.Unstructured{live}, []*unstructured.Unstructured{desired}, dc)
	if err != nil {
		t.Fatal(err)
	}
	liveNoStatus, normLive := live.DeepCopy(), n.Lives[0].DeepCopy()
	unstructured.RemoveNestedField(liveNoStatus.Object, "status")
	unstructured.RemoveNestedField(normLive.Object, "status")
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	from, _ := normLive.MarshalJSON()
	to, _ := liveNoStatus.MarshalJSON()
	patch, err := strategicpatch.CreateThreeWayMergePatch(to, to, from, meta, true)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := n.Targets[0].MarshalJSON()
	out, err := strategicpatch.StrategicMergePatch(target, patch, &appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(out, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// deployment is the analysed pair's Deployment: the manifest and the live object.
func deployment(t *testing.T, a *generator.Analysis) (desired, live *unstructured.Unstructured) {
	t.Helper()
	for _, r := range a.Report.Resources {
		if r.ID.Kind == "Deployment" {
			d, l, err := r.Objects()
			if err != nil {
				t.Fatal(err)
			}
			return d.Unstructured, l.Unstructured
		}
	}
	t.Fatal("no Deployment among the pairs")
	return nil, nil
}

// The sync option RespectIgnoreDifferences=true (issue 28, fix31f): check --target argocd said
// of a change made in Git under an ignored path only that Argo CD does not show it, the same
// whether a sync applies it or never does. An image bump in Git under an ignore of the first
// container's image, and the replicas the HPA owns under the replicas ignore, on
// fixtures/argocd/argo-hpa, judged with the Application's syncOptions with and without the
// option: the hidden finding must say what Argo CD's sync applies (syncApplies): the live image
// with the option ("never reaches the cluster"), Git's without ("applied at the next sync"); and
// the replicas the HPA owns: kept live with the option, written back from the manifest without.
func TestRespectIgnoreDifferences(t *testing.T) {
	desired := strings.Replace(readFixture(t, "argo-hpa", "desired.yaml"), "image: nginx:1.25", "image: nginx:1.27", 1)
	a := analyzeFiles(t, desired, readFixture(t, "argo-hpa", "live.yaml"), "argo-hpa")
	ignores := []v1alpha1.ResourceIgnoreDifferences{{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas", "/spec/template/spec/containers/0/image"}}}
	const image = "spec.template.spec.containers[name=web].image"
	for _, respect := range []bool{false, true} {
		app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n" +
			"  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas, /spec/template/spec/containers/0/image]}\n" +
			"  syncPolicy:\n    automated: {}\n    syncOptions: [CreateNamespace=true]\n"
		if respect {
			app = strings.Replace(app, "[CreateNamespace=true]", "[CreateNamespace=true, RespectIgnoreDifferences=true]", 1)
		}
		s := settingsOf(t, app)
		res, v := synthesizeAndVerify(t, a, s)
		d, l := deployment(t, a)
		// Argo CD's StateDiff: OutOfSync without the ignores, Synced under them (the change is hidden)
		plain, err := argocd.Diff(d, l, argocd.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		under, err := argocd.Diff(d, l, s)
		if err != nil {
			t.Fatal(err)
		}
		if !plain.Modified || under.Modified {
			t.Fatalf("Argo CD: OutOfSync without the ignores %v, under them %v: want OutOfSync, then Synced", plain.Modified, under.Modified)
		}
		applied := syncApplies(t, d, l, ignores, respect)
		containers, _, _ := unstructured.NestedSlice(applied, "spec", "template", "spec", "containers")
		appliedImage := containers[0].(map[string]any)["image"]
		appliedReplicas, _, _ := unstructured.NestedFieldNoCopy(applied, "spec", "replicas")
		liveReplicas, _, _ := unstructured.NestedFieldNoCopy(l.Object, "spec", "replicas")
		// what the finding must say, from what the sync applies
		wantImage, wantReplicas := "applied at the next sync, not shown as OutOfSync", "every sync writes the manifest's value back"
		if appliedImage == "nginx:1.25" { // the live image: Git's never reaches the cluster
			wantImage = "never reaches the cluster"
		} else if appliedImage != "nginx:1.27" {
			t.Fatalf("respect %v: the sync applies image %v, neither Git's nor the live one", respect, appliedImage)
		}
		if fmt.Sprint(appliedReplicas) == fmt.Sprint(liveReplicas) { // JSON numbers are float64 there, int64 here
			wantReplicas = "keeps the controller's value"
		}
		var hidden []verdict.Finding
		for _, f := range argocd.Findings(res.Left, v, nil, "") {
			if f.Path == image {
				hidden = append(hidden, f)
			}
		}
		if len(hidden) != 1 || hidden[0].Kind != verdict.KindHidden || !hidden[0].Fails || !strings.Contains(hidden[0].Evidence, wantImage) {
			t.Errorf("respect %v: findings on %s %+v, want one, hidden, failing, saying %q (the sync applies %v)", respect, image, hidden, wantImage, appliedImage)
		}
		notes := v.SyncNotes()
		if len(notes) != 1 || !strings.Contains(notes[0].Text, "spec.replicas") || !strings.Contains(notes[0].Text, wantReplicas) {
			t.Errorf("respect %v: sync notes %q, want one on spec.replicas saying %q (the sync applies replicas %v, live %v)", respect, notes, wantReplicas, appliedReplicas, liveReplicas)
		}
	}
}

// generate --target argocd sets the sync option where a controller owns a declared field its
// ignores take (issue 28, fix31f item 1): the Application it wrote held spec.ignoreDifferences
// alone, so with the HPA's replicas ignored every sync Argo CD made for another change still
// wrote the manifest's replicas over the HPA's (the fight went on, Argo CD showing Synced).
// fixtures/argocd/argo-hpa: the Application written, read as Argo CD's own type, sets
// RespectIgnoreDifferences=true, and under it what the sync applies (syncApplies, Argo CD's
// code) keeps the live replicas; argocd-cm, which sets no sync option, warns that every sync
// writes the manifest's value back, as what the sync applies there says.
func TestGenerateSetsRespectIgnoreDifferences(t *testing.T) {
	a := analyze(t, filepath.Join("argocd", "argo-hpa"))
	d, l := deployment(t, a)
	liveReplicas, _, _ := unstructured.NestedFieldNoCopy(l.Object, "spec", "replicas")
	for _, f := range []argocd.Format{argocd.Application, argocd.ArgoCDCM} {
		g, err := argocd.Generate(a.Report, f, "argo-hpa", nil, "")
		if err != nil {
			t.Fatal(err)
		}
		respect, ignores := false, g.Ignores
		if f == argocd.Application {
			var app v1alpha1.Application
			if err := sigsyaml.UnmarshalStrict(g.Output, &app); err != nil {
				t.Fatalf("%s: the Application written does not read as Argo CD's type: %v\n%s", f, err, g.Output)
			}
			respect = app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.SyncOptions.HasOption("RespectIgnoreDifferences=true")
			if !respect || len(app.Spec.IgnoreDifferences) != len(g.Ignores) {
				t.Errorf("%s: written\n%s\nwant the ignores and spec.syncPolicy.syncOptions holding RespectIgnoreDifferences=true", f, g.Output)
			}
			ignores = app.Spec.IgnoreDifferences
		}
		applied := syncApplies(t, d, l, ignores, respect)
		replicas, _, _ := unstructured.NestedFieldNoCopy(applied, "spec", "replicas")
		want := "every sync writes the manifest's value back"
		if fmt.Sprint(replicas) == fmt.Sprint(liveReplicas) {
			want = "keeps the controller's value"
		}
		notes := g.Verification.SyncNotes()
		if len(notes) != 1 || !strings.Contains(notes[0].Text, "spec.replicas") || !strings.Contains(notes[0].Text, want) {
			t.Errorf("%s: sync notes %q, want one on spec.replicas saying %q (the sync applies replicas %v, live %v)", f, notes, want, replicas, liveReplicas)
		}
	}
}

// A manual sync given options runs with those alone (issue 28, fix32f item 2): Argo CD v3.6.1's
// API server takes a sync request's syncOptions, when it has any, in place of the Application's
// spec.syncPolicy.syncOptions (server/application/application.go Sync: syncOptions =
// syncReq.SyncOptions.Items), and argocd app sync --server-side sends ServerSideApply=true alone
// (cmd/argocd/commands/app.go syncOptionsFactory), so an Application's RespectIgnoreDifferences=true
// does not hold for that sync. SyncedWith must say what that sync applies (syncApplies under the
// operation's options, read by that rule) for the image bump hidden on fixtures/argocd/argo-hpa
// and the replicas the HPA owns.
func TestManualSyncOptions(t *testing.T) {
	desired := strings.Replace(readFixture(t, "argo-hpa", "desired.yaml"), "image: nginx:1.25", "image: nginx:1.27", 1)
	a := analyzeFiles(t, desired, readFixture(t, "argo-hpa", "live.yaml"), "argo-hpa")
	ignores := []v1alpha1.ResourceIgnoreDifferences{{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas", "/spec/template/spec/containers/0/image"}}}
	const image = "spec.template.spec.containers[name=web].image"
	for _, tc := range []struct {
		app, manual []string
	}{
		{[]string{"RespectIgnoreDifferences=true"}, []string{"ServerSideApply=true"}},
		{nil, []string{"RespectIgnoreDifferences=true"}},
		{[]string{"RespectIgnoreDifferences=true"}, []string{"ServerSideApply=true", "RespectIgnoreDifferences=true"}},
	} {
		app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: argo-hpa, namespace: argocd}\nspec:\n" +
			"  ignoreDifferences:\n  - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas, /spec/template/spec/containers/0/image]}\n" +
			"  syncPolicy:\n    syncOptions: [" + strings.Join(tc.app, ", ") + "]\n"
		res, v := synthesizeAndVerify(t, a, settingsOf(t, app))
		v = v.SyncedWith(tc.manual)
		op := v1alpha1.SyncOptions(tc.manual) // the request's options replace the Application's
		d, l := deployment(t, a)
		applied := syncApplies(t, d, l, ignores, op.HasOption("RespectIgnoreDifferences=true"))
		containers, _, _ := unstructured.NestedSlice(applied, "spec", "template", "spec", "containers")
		appliedImage := containers[0].(map[string]any)["image"]
		appliedReplicas, _, _ := unstructured.NestedFieldNoCopy(applied, "spec", "replicas")
		liveReplicas, _, _ := unstructured.NestedFieldNoCopy(l.Object, "spec", "replicas")
		wantImage, wantReplicas := "applied by the sync", "the sync writes the manifest's value back"
		if appliedImage == "nginx:1.25" {
			wantImage = "the sync never applies it"
		}
		if fmt.Sprint(appliedReplicas) == fmt.Sprint(liveReplicas) {
			wantReplicas = "keeps the controller's value at the sync"
		}
		var hidden []verdict.Finding
		for _, f := range argocd.Findings(res.Left, v, nil, "") {
			if f.Path == image {
				hidden = append(hidden, f)
			}
		}
		if len(hidden) != 1 || !strings.Contains(hidden[0].Evidence, wantImage) || !strings.Contains(hidden[0].Evidence, "--sync-option") {
			t.Errorf("Application %v, manual sync %v: findings on %s %+v, want one saying %q (the sync applies %v)", tc.app, tc.manual, image, hidden, wantImage, appliedImage)
		}
		notes := v.SyncNotes()
		if len(notes) != 1 || !strings.Contains(notes[0].Text, wantReplicas) || notes[0].Warning != strings.Contains(wantReplicas, "back") {
			t.Errorf("Application %v, manual sync %v: sync notes %+v, want one saying %q (the sync applies replicas %v, live %v)", tc.app, tc.manual, notes, wantReplicas, appliedReplicas, liveReplicas)
		}
	}
}
