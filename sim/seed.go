package sim

import "github.com/loopsim/loopsim/fakemodel"

// Stream tags: each of an episode's random streams is derived from the
// episode's seed and its own tag, so no two streams share a seed.
const (
	tagEpisode  = 0x65706973 // "epis"
	tagWorkload = 0x776f726b // "work"
	tagFaults   = 0x66617574 // "faut"
	tagJitter   = 0x6a697474 // "jitt"
	tagSession  = 0x73657373 // "sess"
	tagUser     = 0x75736572 // "user"
)

// EpisodeSeed is the seed of episode index (from 0) of a simulation with
// root seed root. It depends on nothing else: not on the setting, not on
// the parallelism, so every setting of a sweep plays the same sessions
// (common random numbers) and the difference between two settings is
// the policy's doing.
func EpisodeSeed(root uint64, index int) uint64 {
	return derive(derive(root, tagEpisode), uint64(index))
}

// Streams are the seeds of one episode's random streams.
type Streams struct {
	// Model seeds the workload (the session and its sizes) and the faults.
	Model fakemodel.Seeds
	// Jitter seeds the loop's retry jitter (loop.Config.Seed).
	Jitter uint64
}

// StreamsOf derives an episode's streams from its seed.
func StreamsOf(seed uint64) Streams {
	return Streams{
		Model:  fakemodel.Seeds{Workload: derive(seed, tagWorkload), Faults: derive(seed, tagFaults), Session: derive(seed, tagSession)},
		Jitter: derive(seed, tagJitter),
	}
}

// UserSeed is the session seed ([fakemodel.Seeds.Session]) shared by
// the episodes of user index (from 0) of a simulation with root seed
// root that groups its episodes by user (see [CalibrateUsers]).
func UserSeed(root uint64, index int) uint64 {
	return derive(derive(root, tagUser), uint64(index))
}

// derive mixes a tag into a seed: a SplitMix64 step, whose output
// differs in about half its bits for any one-bit change of its input.
func derive(seed, tag uint64) uint64 {
	return mix(seed ^ mix(tag+0x9e3779b97f4a7c15))
}

// mix is SplitMix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
