pub fn rules_are_loaded_lazily() {}
