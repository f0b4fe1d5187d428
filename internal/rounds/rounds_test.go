package rounds

import (
	"errors"
	"slices"
	"testing"
)

func TestOrders(t *testing.T) {
	if got := Interleaved(2, 4); !slices.Equal(got, []int{0, 1, 1, 0, 0, 1, 1, 0}) {
		t.Errorf("ABBA: %v", got)
	}
	if got := Ordered([]string{"a", "b", "c"}, 1); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Errorf("round 2: %v", got)
	}
	for r := range 3 { // every subject takes every slot once in n rounds, one subject a slot
		seen := map[int]bool{}
		for i := range 3 {
			seen[Slot(i, r, 3)] = true
		}
		if len(seen) != 3 {
			t.Errorf("round %d: slots %v", r, seen)
		}
	}
}

func TestRerunIsBounded(t *testing.T) {
	n, said := 0, 0
	m, again, err := Rerun(3, func() (int, error) { n++; return n, nil }, func(int) bool { return true }, func(int) { said++ })
	if m != 3 || again != 2 || said != 2 || err != nil {
		t.Errorf("always disturbed: kept %d, again %d, said %d, %v", m, again, said, err)
	}
	n = 0
	m, again, _ = Rerun(3, func() (int, error) { n++; return n, nil }, func(m int) bool { return m < 2 }, nil)
	if m != 2 || again != 1 {
		t.Errorf("disturbed once: kept %d, again %d", m, again)
	}
	boom := errors.New("boom")
	if _, _, err := Rerun(3, func() (int, error) { return 0, boom }, func(int) bool { return true }, nil); err != boom {
		t.Errorf("error: %v", err)
	}
}

func TestCleanPairs(t *testing.T) {
	clean := map[Key]bool{{"a", 1, 1}: true, {"b", 1, 1}: true, {"a", 1, 2}: true, {"b", 2, 2}: true}
	if n := CleanPairs(clean, "a", "b"); n != 1 {
		t.Errorf("pairs: %d, want 1", n)
	}
}
