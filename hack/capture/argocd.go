package main

import (
	"context"
	"fmt"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/kube"
	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/utils/tracing"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/argo"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rebasegen/rebasegen/internal/scenario"
)

// argoCD applies objects as Argo CD v3.6.1's application controller syncs them, with its own code:
// it stamps its tracking annotation on each target object (controller/state.go
// NormalizeTargetObjects, annotation tracking, v3's default) and applies it with gitops-engine's
// kubectl apply (pkg/sync/sync_context.go applyObject -> ApplyResource): client-side apply by
// default, server-side with the ServerSideApply=true sync option, manifest validation on, under
// the manager argocd-controller in both modes (controller/sync.go WithServerSideApplyManager,
// gitops-engine resource_ops.go newApplyOptions sets it as kubectl's field manager).
func argoCD(kubeconfig string) (scenario.ArgoCDApply, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, app, namespace string, obj *unstructured.Unstructured, serverSide bool) error {
		if err := argo.NewResourceTracking().SetAppInstance(obj, common.LabelKeyAppInstance, app, namespace, v1alpha1.TrackingMethodAnnotation, ""); err != nil {
			return fmt.Errorf("argo cd tracking of %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		// kubectl's factory caches discovery: a custom resource whose CRD the previous apply
		// created is unknown to it. Argo CD makes one per sync (and applies such a resource in a
		// later sync wave than its CRD); one per object here.
		ops, cleanup, err := (&kube.KubectlCmd{Log: logr.Discard(), Tracer: tracing.NopTracer{}}).ManageResources(cfg)
		if err != nil {
			return err
		}
		defer cleanup()
		validate := true // unless the Validate=false sync option
		if _, err := ops.ApplyResource(ctx, obj, cmdutil.DryRunNone, false, validate, serverSide, common.ArgoCDSSAManager); err != nil {
			return fmt.Errorf("argo cd apply of %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		return nil
	}, nil
}
