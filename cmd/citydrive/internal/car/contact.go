package car

// String lists the kinds touched, for logs ("parked car+shore").
func (c Contact) String() string {
	names := [...]string{"building", "parked car", "street furniture", "rail", "shore", "block", "traffic"}
	s := ""
	for i, n := range names {
		if c&(1<<i) != 0 {
			if s != "" {
				s += "+"
			}
			s += n
		}
	}
	if s == "" {
		return "nothing"
	}
	return s
}
