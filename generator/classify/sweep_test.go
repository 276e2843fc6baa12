package classify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rebasegen/rebasegen/rulesets"
)

// refusalTexts are the texts of the refusals of an update that do not call ValidateImmutableField.
var refusalTexts = []string{"is immutable", "are immutable", "may not change", "may not be changed", "cannot be changed", "can not be changed", "must not be changed", "may not be updated", "updates to", "cannot be modified", "can not be modified", "cannot be cleared", "decremented", "decrease", "cannot be reverted"}

// refusalSites counts, per function of k8s.io/kubernetes's pkg/apis/*/validation ("group/file.go
// Func"), the places that refuse a change on update: calls of ValidateImmutableField and
// ValidateImmutableAnnotation, the FieldImmutableErrorMsg constant, refusalTexts (comments left
// out), and, in a function on an update's path (onUpdatePath), each field.Forbidden, whatever its
// wording (fix28f: "may not add AppArmor annotations", "update to nil is forbidden when ...").
func refusalSites(t *testing.T) map[string]int {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "pkg", "apis", "*", "validation", "*.go"))
	if err != nil || len(files) < 20 {
		t.Fatalf("the validation sources: %d files (%v)", len(files), err)
	}
	sites := map[string]int{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		group := filepath.Base(filepath.Dir(filepath.Dir(f)))
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Name.Name == "ValidateImmutableField" || fn.Name.Name == "ValidateImmutableAnnotation" {
				continue
			}
			key := group + "/" + filepath.Base(f) + " " + fn.Name.Name
			update := onUpdatePath(fn)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && update && sel.Sel.Name == "Forbidden" {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "field" {
							sites[key]++
							return false // one site, whatever its message says
						}
					}
				case *ast.Ident:
					switch n.Name {
					case "ValidateImmutableField", "ValidateImmutableAnnotation", "FieldImmutableErrorMsg", "fieldImmutableErrorMsg":
						sites[key]++
					}
				case *ast.BasicLit:
					if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && slices.ContainsFunc(refusalTexts, func(r string) bool { return strings.Contains(s, r) }) {
						sites[key]++
					}
				}
				return true
			})
		}
	}
	return sites
}

// onUpdatePath reports whether fn validates an update: its name says so, or it is given the old
// object (a parameter named old...).
func onUpdatePath(fn *ast.FuncDecl) bool {
	if strings.Contains(fn.Name.Name, "Update") {
		return true
	}
	for _, p := range fn.Type.Params.List {
		for _, n := range p.Names {
			if strings.HasPrefix(strings.ToLower(n.Name), "old") {
				return true
			}
		}
	}
	return false
}

// How each refusal of an update in Kubernetes' validation is known here: fields of
// rulesets/immutable.yaml, a kind whose update validation runs (updateValidations), or why it is
// not a deploy's concern.
type refusalCover struct {
	sites     int
	immutable []string // "group/Kind path", each an entry of rulesets/immutable.yaml
	validated []string // "group/Kind", each in updateValidations
	not       string   // reviewed: why no change kapp's deploy makes meets it
}

// Every refusal of an update in Kubernetes' validation sources is known here, or reviewed as none
// of a deploy's business: a change made in Git to a ResourceClaimTemplate's spec passed check while
// the server refuses it (probe14 P14-2), and a VolumeAttributesClass's parameters after it
// (fix27c: "updates to parameters are forbidden", a text the first sweep did not search). A new
// Kubernetes version adding one fails here until it is listed, run or reviewed.
func TestImmutabilitySweep(t *testing.T) {
	rs, err := rulesets.Load()
	if err != nil {
		t.Fatal(err)
	}
	const status = "a status subresource: kapp updates the main resource, whose strategy keeps the live status"
	var events []string
	for _, p := range []string{"regarding", "reason", "note", "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "type", "eventTime", "action", "related", "reportingController", "reportingInstance"} {
		events = append(events, "events.k8s.io/Event "+p)
	}
	reviewed := map[string]refusalCover{
		"apps/validation.go ValidateControllerRevisionUpdate":                                            {sites: 1, validated: []string{"apps/ControllerRevision"}},
		"apps/validation.go ValidateDaemonSetSpecUpdate":                                                 {sites: 2, immutable: []string{"apps/DaemonSet spec.selector"}, not: "spec.templateGeneration (must not be decremented): the strategy's PrepareForUpdate sets it from the live one (pkg/registry/apps/daemonset/strategy.go)"},
		"apps/validation.go ValidateDeploymentUpdate":                                                    {sites: 1, immutable: []string{"apps/Deployment spec.selector"}},
		"apps/validation.go ValidateReplicaSetUpdate":                                                    {sites: 1, immutable: []string{"apps/ReplicaSet spec.selector"}},
		"apps/validation.go ValidateStatefulSetUpdate":                                                   {sites: 4, immutable: []string{"apps/StatefulSet spec.selector", "apps/StatefulSet spec.volumeClaimTemplates", "apps/StatefulSet spec.serviceName", "apps/StatefulSet spec.podManagementPolicy"}},
		"batch/validation.go ValidateJobSpecUpdate":                                                      {sites: 6, immutable: []string{"batch/Job spec.selector", "batch/Job spec.completionMode", "batch/Job spec.podFailurePolicy", "batch/Job spec.backoffLimitPerIndex", "batch/Job spec.managedBy", "batch/Job spec.successPolicy"}},
		"batch/validation.go ValidateJobStatusUpdate":                                                    {sites: 4, not: status},
		"batch/validation.go validateCompletions":                                                        {sites: 1, immutable: []string{"batch/Job spec.completions"}},
		"batch/validation.go validateJobSchedulingUpdate":                                                {sites: 1, not: "spec.scheduling: feature gate WorkloadWithJob (alpha, off by default), the field is refused on create"},
		"batch/validation.go validatePodResourceUpdatesOnly":                                             {sites: 1, immutable: []string{"batch/Job spec.template"}},
		"batch/validation.go validatePodTemplateUpdate":                                                  {sites: 2, immutable: []string{"batch/Job spec.template"}},
		"certificates/validation.go ValidateClusterTrustBundleUpdate":                                    {sites: 1, validated: []string{"certificates.k8s.io/ClusterTrustBundle"}},
		"certificates/validation.go ValidatePodCertificateRequestStatusUpdate":                           {sites: 1, not: status},
		"certificates/validation.go ValidatePodCertificateRequestUpdate":                                 {sites: 1, validated: []string{"certificates.k8s.io/PodCertificateRequest"}},
		"coordination/validation.go ValidateLeaseCandidateSpecUpdate":                                    {sites: 1, validated: []string{"coordination.k8s.io/LeaseCandidate"}},
		"core/events.go ValidateEventUpdate":                                                             {sites: 14, immutable: events},
		"core/validation.go ValidateConfigMapUpdate":                                                     {sites: 3, immutable: []string{"/ConfigMap immutable", "/ConfigMap data", "/ConfigMap binaryData"}},
		"core/validation.go ValidatePersistentVolumeClaimUpdate":                                         {sites: 8, immutable: []string{"/PersistentVolumeClaim spec", `/PersistentVolumeClaim metadata.annotations["volume.beta.kubernetes.io/storage-class"]`}, validated: []string{"/PersistentVolumeClaim"}},
		"core/validation.go ValidatePersistentVolumeUpdate":                                              {sites: 4, validated: []string{"/PersistentVolume"}},
		"core/validation.go ValidatePodStatusUpdate":                                                     {sites: 3, not: status},
		"core/validation.go ValidatePodUpdate":                                                           {sites: 1, immutable: []string{"/Pod spec"}},
		"core/validation.go ValidatePodEphemeralContainersUpdate":                                        {sites: 3, not: "the ephemeralcontainers subresource, which kapp does not use"},
		"core/validation.go ValidatePodResize":                                                           {sites: 16, not: "the resize subresource, which kapp does not use"},
		"core/validation.go ValidateNodeUpdate":                                                          {sites: 5, immutable: []string{"/Node spec.podCIDR", "/Node spec.podCIDRs", "/Node spec.providerID", "/Node spec.externalID"}},
		"core/validation.go ValidateResourceQuotaUpdate":                                                 {sites: 1, validated: []string{"/ResourceQuota"}},
		"core/validation.go ValidateSecretUpdate":                                                        {sites: 3, immutable: []string{"/Secret type", "/Secret immutable", "/Secret data", "/Secret stringData"}},
		"core/validation.go validateLoadBalancerClassField":                                              {sites: 2, validated: []string{"/Service"}},
		"core/validation.go validatePvNodeAffinity":                                                      {sites: 1, validated: []string{"/PersistentVolume"}},
		"core/validation.go validateServiceExternalTrafficFieldsUpdate":                                  {sites: 1, validated: []string{"/Service"}},
		"core/validation.go validateUpgradeDowngradeClusterIPs":                                          {sites: 3, validated: []string{"/Service"}},
		"core/validation.go validateUpgradeDowngradeIPFamilies":                                          {sites: 3, validated: []string{"/Service"}},
		"discovery/validation.go ValidateEndpointSliceUpdate":                                            {sites: 1, immutable: []string{"discovery.k8s.io/EndpointSlice addressType"}},
		"lifecycle/validation.go ValidateEvictionStatusResponder":                                        {sites: 2, not: status},
		"lifecycle/validation.go ValidateEvictionTargetResponders":                                       {sites: 1, not: status},
		"networking/validation.go ValidateIPAddressUpdate":                                               {sites: 1, validated: []string{"networking.k8s.io/IPAddress"}},
		"networking/validation.go ValidateServiceCIDRUpdate":                                             {sites: 3, validated: []string{"networking.k8s.io/ServiceCIDR"}},
		"networking/validation.go validateIngressClassSpecUpdate":                                        {sites: 1, immutable: []string{"networking.k8s.io/IngressClass spec.controller"}},
		"node/validation.go ValidateRuntimeClassUpdate":                                                  {sites: 1, immutable: []string{"node.k8s.io/RuntimeClass handler"}},
		"rbac/validation.go ValidateClusterRoleBindingUpdate":                                            {sites: 1, immutable: []string{"rbac.authorization.k8s.io/ClusterRoleBinding roleRef"}},
		"rbac/validation.go ValidateRoleBindingUpdate":                                                   {sites: 1, immutable: []string{"rbac.authorization.k8s.io/RoleBinding roleRef"}},
		"resource/validation.go ValidateResourceClaimTemplateUpdate":                                     {sites: 1, validated: []string{"resource.k8s.io/ResourceClaimTemplate"}},
		"resource/validation.go ValidateResourceClaimUpdate":                                             {sites: 1, validated: []string{"resource.k8s.io/ResourceClaim"}},
		"resource/validation.go validateResourceClaimStatusUpdate":                                       {sites: 3, not: status},
		"resource/validation.go validateResourceSliceSpec":                                               {sites: 3, validated: []string{"resource.k8s.io/ResourceSlice"}},
		"resource/validation_resourcepoolstatusrequest.go validateResourcePoolStatusRequestStatusUpdate": {sites: 1, not: status},
		"scheduling/validation.go ValidatePriorityClassUpdate":                                           {sites: 2, immutable: []string{"scheduling.k8s.io/PriorityClass value", "scheduling.k8s.io/PriorityClass preemptionPolicy"}},
		"storage/validation.go ValidateCSIDriverUpdate":                                                  {sites: 2, immutable: []string{"storage.k8s.io/CSIDriver spec.attachRequired", "storage.k8s.io/CSIDriver spec.volumeLifecycleModes"}},
		"storage/validation.go ValidateCSINodeUpdate":                                                    {sites: 2, validated: []string{"storage.k8s.io/CSINode"}},
		"storage/validation.go ValidateCSIStorageCapacityUpdate":                                         {sites: 2, validated: []string{"storage.k8s.io/CSIStorageCapacity"}},
		"storage/validation.go ValidateStorageClassUpdate":                                               {sites: 4, immutable: []string{"storage.k8s.io/StorageClass parameters", "storage.k8s.io/StorageClass provisioner", "storage.k8s.io/StorageClass reclaimPolicy", "storage.k8s.io/StorageClass volumeBindingMode"}},
		"storage/validation.go ValidateVolumeAttributesClassUpdate":                                      {sites: 2, immutable: []string{"storage.k8s.io/VolumeAttributesClass driverName", "storage.k8s.io/VolumeAttributesClass parameters"}},
		"storage/validation.go ValidateVolumeAttachmentUpdate":                                           {sites: 1, immutable: []string{"storage.k8s.io/VolumeAttachment spec"}},
		"storagemigration/validation.go ValidateStorageVersionMigrationStatusUpdate":                     {sites: 1, not: status},
		"storagemigration/validation.go ValidateStorageVersionMigrationUpdate":                           {sites: 1, validated: []string{"storagemigration.k8s.io/StorageVersionMigration"}},
		"apps/validation.go ValidateDaemonSetStatusUpdate":                                               {sites: 1, not: status},
		"apps/validation.go ValidateDeploymentStatusUpdate":                                              {sites: 1, not: status},
		"apps/validation.go ValidateStatefulSetStatusUpdate":                                             {sites: 1, not: status},
		"certificates/validation.go validateCertificateSigningRequestUpdate":                             {sites: 5, not: "status.conditions and status.certificate: the main resource's PrepareForUpdate keeps the live status (pkg/registry/certificates/certificates/strategy.go); the approval and status subresources, which kapp does not use"},
		"core/validation.go ValidateContainerStateTransition":                                            {sites: 2, not: status},
		"core/validation.go ValidateInitContainerStateTransition":                                        {sites: 2, not: status},
		"core/validation.go ValidateEphemeralContainerStateTransition":                                   {sites: 1, not: status},
		"core/validation.go ValidateLoadBalancerStatus":                                                  {sites: 2, not: status},
		"core/validation.go ValidateContainerUpdates":                                                    {sites: 1, immutable: []string{"/Pod spec"}},
		"core/validation.go validateOnlyAddedTolerations":                                                {sites: 1, immutable: []string{"/Pod spec"}},
		"core/validation.go validateOnlyDeletedSchedulingGates":                                          {sites: 1, immutable: []string{"/Pod spec"}},
		"core/validation.go validateContainerResize":                                                     {sites: 2, not: "ValidatePodResize's: the resize subresource, which kapp does not use"},
		"core/validation.go validatePodLevelResourcesResize":                                             {sites: 4, not: "ValidatePodResize's: the resize subresource, which kapp does not use"},
		"core/validation.go validatePodResizeContainerOrdering":                                          {sites: 4, not: "ValidatePodResize's: the resize subresource, which kapp does not use"},
		"core/validation.go ValidatePodSpecificAnnotationUpdates":                                        {sites: 4, immutable: []string{`/Pod metadata.annotations["container.apparmor.security.beta.kubernetes.io/*"]`, `/Pod metadata.annotations["kubernetes.io/config.mirror"]`}},
		"core/validation.go validateService":                                                             {sites: 8, validated: []string{"/Service"}},
		"lifecycle/validation.go ValidateEvictionStatus":                                                 {sites: 1, not: status},
	}
	sites := refusalSites(t)
	keys := make([]string, 0, len(sites))
	for k := range sites {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		c, ok := reviewed[k]
		if !ok {
			t.Errorf("%s: %d refusal(s) of an update not reviewed", k, sites[k])
			continue
		}
		if c.sites != sites[k] {
			t.Errorf("%s: %d refusal(s), reviewed %d", k, sites[k], c.sites)
		}
		for _, e := range c.immutable {
			gk, path, _ := strings.Cut(e, " ")
			group, kind, _ := strings.Cut(gk, "/")
			if !slices.ContainsFunc(rs.Immutable, func(f rulesets.Field) bool { return f.Group == group && f.Kind == kind && f.Path == path }) {
				t.Errorf("%s: rulesets/immutable.yaml has no %s", k, e)
			}
		}
		for _, e := range c.validated {
			group, kind, _ := strings.Cut(e, "/")
			if _, ok := updateValidations[schema.GroupKind{Group: group, Kind: kind}]; !ok && e != "/Service" {
				t.Errorf("%s: %s's update validation is not run (updateValidations)", k, e)
			}
		}
	}
	for k := range reviewed {
		if _, ok := sites[k]; !ok {
			t.Errorf("%s: reviewed, no longer in the sources", k)
		}
	}
}
