import ArgumentParser

/// The agent `pushgate hook` runs for (`--agent`): what `--settings` prints, and how
/// Codex's `notify` argument is read.
enum HookAgent: String, ExpressibleByArgument, CaseIterable {
    /// Claude Code: hook events on standard input; `--settings` prints
    /// `.claude/settings.json`'s hooks block.
    case claudeCode = "claude-code"
    /// Codex: its `notify` program's last argument (a finished turn), and its hooks
    /// that share Claude Code's wire on standard input (`PermissionRequest`);
    /// `--settings` prints `config.toml` lines.
    case codex
}
