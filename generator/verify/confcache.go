package verify

import (
	"strconv"
	"strings"
	"sync"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
)

// kappConfs holds what kapp made of config sources already seen, keyed on their exact JSON bytes:
// generate verifies ~33 times (verification, mutation rounds) with the same package Configs and
// rules, and validating them and building kapp's Conf on every call (kapp parses its built-in
// default config again each time) took 2.4 s of 17.4 s CPU on the fixture corpus (1,000 pairs).
//
// One Conf serves every call and worker because nothing writes it after parsing: its methods
// return new slices and new mods, and kapp's mods and matchers only read the rules' paths
// (resources/mod_*.go build new Paths when they expand them). The mods themselves, which carry
// a call's rule timing, are still made per worker (changeFactory).
var kappConfs = &confCache{}

// confCacheMax bounds each map; past it the map starts over (a long-running caller with ever new
// rules must not keep them all).
const confCacheMax = 64

type confCache struct {
	mu    sync.Mutex
	mods  map[string]int          // one source's JSON -> rebase mods it makes (validated)
	confs map[string]ctlconf.Conf // every source's JSON, in order -> kapp's Conf
}

// validate is validateConfig, once per distinct source. Failures are not kept (and may panic,
// as validateConfig does).
func (c *confCache) validate(bs []byte) (int, error) {
	c.mu.Lock()
	n, ok := c.mods[string(bs)]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := validateConfig(bs)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mods == nil || len(c.mods) >= confCacheMax {
		c.mods = map[string]int{}
	}
	c.mods[string(bs)] = n
	return n, nil
}

// conf is build(), once per distinct list of sources. Failures are not kept.
func (c *confCache) conf(sources [][]byte, build func() (ctlconf.Conf, error)) (ctlconf.Conf, error) {
	var key strings.Builder
	for _, bs := range sources {
		key.WriteString(strconv.Itoa(len(bs)))
		key.WriteByte(':')
		key.Write(bs)
	}
	c.mu.Lock()
	conf, ok := c.confs[key.String()]
	c.mu.Unlock()
	if ok {
		return conf, nil
	}
	conf, err := build()
	if err != nil {
		return ctlconf.Conf{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.confs == nil || len(c.confs) >= confCacheMax {
		c.confs = map[string]ctlconf.Conf{}
	}
	c.confs[key.String()] = conf
	return conf, nil
}
