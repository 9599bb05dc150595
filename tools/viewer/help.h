// The viewer's controls, listed once: the Help panel draws this table and docs/viewer.md
// repeats it.
#pragma once

#include <array>

namespace tessera::viewer {

struct ControlHelp {
  const char* input;
  const char* action;
};

inline constexpr std::array<ControlHelp, 15> kControlHelp{{
    {"C", "toggle orbit / fly camera"},
    {"Orbit: left drag", "turn around the target"},
    {"Orbit: wheel", "zoom towards / away from the target"},
    {"Orbit: right or middle drag", "pan (moves the target too)"},
    {"Fly: W / S", "forward / back"},
    {"Fly: A / D", "left / right"},
    {"Fly: Q / E", "down / up"},
    {"Fly: right drag", "look around"},
    {"Fly: Shift", "move 4x faster"},
    {"R", "reset the view to the scene's camera"},
    {"O", "cycle overlays"},
    {"F12", "save a screenshot (path in the Screenshot section)"},
    {"H or F1", "show / hide this help"},
    {"Scene path + Enter / Load", "open another scene (errors keep the current one)"},
    {"Esc / window close", "quit"},
}};

}  // namespace tessera::viewer
