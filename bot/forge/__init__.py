"""Where sources come from: local repositories on disk, and (later) a GitLab group."""
