package properties

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// swarmFieldDraws is how many policies the guard draws from each
// profile: enough that a field PolicyGen draws takes two values in
// every profile (the rarest, a value of one in four, misses 200 draws
// with probability (3/4)^200).
const swarmFieldDraws = 200

// TestPolicyGenDrawsEveryField is the guard on the swarm's reach: every
// exported field of loop.Policy either varies among the policies
// PolicyGen draws from each built-in profile, or is listed in
// fixedPolicyFields with the reason it stays at the profile's value (and
// then never varies). A field added to Policy fails this test until
// someone draws it or lists it.
func TestPolicyGenDrawsEveryField(t *testing.T) {
	policyType := reflect.TypeFor[loop.Policy]()
	fixed := map[string]string{}
	for _, f := range fixedPolicyFields {
		_, ok := policyType.FieldByName(f.Field)
		assert.True(t, ok, "fixedPolicyFields lists %s, which loop.Policy has no field of", f.Field)
		assert.NotEmpty(t, f.Why, "fixedPolicyFields: %s needs its reason", f.Field)
		_, twice := fixed[f.Field]
		assert.False(t, twice, "fixedPolicyFields lists %s twice", f.Field)
		fixed[f.Field] = f.Why
	}
	for _, name := range loop.Profiles() {
		base, err := loop.Profile(name)
		require.NoError(t, err)
		values := make([]map[string]bool, policyType.NumField())
		for i := range values {
			values[i] = map[string]bool{}
		}
		g := PolicyGen(base)
		for seed := range swarmFieldDraws {
			p := g.Example(seed)
			require.NoError(t, p.Validate(), "%s: PolicyGen drew an invalid policy (example %d)", name, seed)
			v := reflect.ValueOf(p)
			for i := range policyType.NumField() {
				values[i][fmt.Sprintf("%#v", v.Field(i).Interface())] = true
			}
		}
		baseValue := reflect.ValueOf(base)
		for i := range policyType.NumField() {
			f := policyType.Field(i)
			if !f.IsExported() {
				continue
			}
			why, isFixed := fixed[f.Name]
			switch {
			case isFixed && len(values[i]) > 1:
				t.Errorf("%s: PolicyGen varies %s (%d values), which fixedPolicyFields keeps fixed (%s): drop it from the table",
					name, f.Name, len(values[i]), why)
			case isFixed && !values[i][fmt.Sprintf("%#v", baseValue.Field(i).Interface())]:
				t.Errorf("%s: PolicyGen sets %s to %v, not the profile's value, though fixedPolicyFields keeps it fixed", name, f.Name, values[i])
			case !isFixed && len(values[i]) < 2:
				t.Errorf("%s: PolicyGen never varies loop.Policy.%s (always %v): draw it in PolicyGen, or list it in fixedPolicyFields with the reason it stays fixed",
					name, f.Name, values[i])
			}
		}
	}
}

// TestSwarmGenSwitches: SwarmGen switches every fault kind on in some
// swarms and off in others, and Overflow only ever with BigInputs, not
// always with it.
func TestSwarmGenSwitches(t *testing.T) {
	on := map[fakemodel.Kind]int{}
	overflow, bigOnly := 0, 0
	for seed := range swarmFieldDraws {
		s := SwarmGen().Example(seed)
		for _, k := range s.Kinds {
			on[k]++
		}
		switch {
		case s.Overflow && !s.BigInputs:
			t.Fatalf("example %d: Overflow without BigInputs", seed)
		case s.Overflow:
			overflow++
		case s.BigInputs:
			bigOnly++
		}
	}
	for _, k := range faultKinds {
		assert.Positive(t, on[k], "kind %s never switched on", k)
		assert.Less(t, on[k], swarmFieldDraws, "kind %s never switched off", k)
	}
	assert.Positive(t, overflow, "big inputs with overflow")
	assert.Positive(t, bigOnly, "big inputs without overflow")
}
