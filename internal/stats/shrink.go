package stats

// SamplesToShrink is how many samples would bring an interval's width (a half-width, or one side
// of it) from width, measured over n samples, down to distance: a width shrinks as one over the
// square root of the samples, so n (width / distance)². The spread and Student's t are taken as
// they are now (more samples lower t: a slight overestimate). +Inf when distance is 0, NaN when it
// is not a number; callers round and cap it.
func SamplesToShrink(n, width, distance float64) float64 {
	return n * (width / distance) * (width / distance)
}
