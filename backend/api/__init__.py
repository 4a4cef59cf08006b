"""HTTP layer: dependencies, the same-origin guard and one router per resource."""
