package slots

// Tree is one instanced tree built with a slot's item: the base of its
// trunk relative to the item's origin, a size factor (1 = a tree about 9 m
// tall) and a variant in [0,1) that picks crown colour and shape. The
// builder makes them, the renderer draws them: one type, never converted.
type Tree struct {
	Pos     [3]float32
	Scale   float32
	Variant float32
}
