//go:build tools

package tools

import _ "github.com/vmware-tanzu/carvel-kapp-controller/cmd/controller"
