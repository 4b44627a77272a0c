// The one place where text from the inputs (file names, paths, event names, DCGM
// values) is made safe for a terminal or a log line: it can no longer move the
// cursor, set a window title, clear the screen or start a forged line.
#pragma once

#include <string>
#include <string_view>

namespace xstack {

// `text` with every byte that a terminal could act on replaced by '?': C0 controls
// (0x00-0x1f: ESC of CSI/OSC sequences, BEL, '\n', '\r', '\t', ...), DEL (0x7f), C1 controls
// (U+0080-U+009F, as UTF-8 or as single bytes such as 0x9b, the 8-bit CSI) and bytes that
// are not valid UTF-8. Printable ASCII and valid UTF-8 of U+00A0 and above are kept
// as they are, so the result is valid UTF-8 with no control character.
std::string terminalSafe(std::string_view text);

// terminalSafe of each line of `text`, the '\n' between them kept: for a message of
// several lines of xstack's own (a usage text) whose parts from the user are made safe.
std::string terminalSafeLines(std::string_view text);

// terminalSafe of at most `maxBytes` bytes of `text`, quoted, with "..." inside the
// quotes when cut: a short example of input bytes for a warning ("GPU\x1b[2J" -> "GPU?[2J").
std::string terminalExcerpt(std::string_view text, size_t maxBytes = 40);

}  // namespace xstack
