//! Error types shared by the stages: each carries the path or name it is about.
