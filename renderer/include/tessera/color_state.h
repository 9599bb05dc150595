// Control-surface states of the colour unit (docs/color.md): the 4-bit code stored per 8x4
// tile of a multisampled render target. Shared by the unit, the capture tool and the viewer.
#pragma once

#include <cstdint>

namespace tessera {

// X(name, 4-bit code, meaning)
// clang-format off
#define TESSERA_COLOR_TILE_STATES(X)                                                           \
  X(cleared, 0, "every sample holds the clear colour: nothing but the control code is stored") \
  X(planes_uncompressed, 1, "used planes stored raw, plus the index bits")                     \
  X(planes_compressed, 2, "used planes stored with a 2-bit codec tag each, plus the index bits") \
  X(index_one_colour, 8, "palette in the index bits: one colour")                              \
  X(index_two_colour, 9, "palette in the index bits: 4x two colours")                          \
  X(index_method_b, 10, "palette in the index bits: 4x method B (3 colours)")                  \
  X(index_method_b_clear, 11, "palette in the index bits: 4x method B, clear colour implied")  \
  X(index_four_colour, 12, "palette in the index bits: 8x four colours")                       \
  X(index_six_colour, 13, "palette in the index bits: 8x six colours with pixel states")      \
  X(index_eight_colour, 14, "palette in the index bits: 8x eight colours with pixel states")
// clang-format on

enum class ColorTileState : uint8_t {
#define TESSERA_X(name, code, desc) name = code,
  TESSERA_COLOR_TILE_STATES(TESSERA_X)
#undef TESSERA_X
};

// Name of a control code ("cleared", ...), or nullptr for an unused code.
const char* color_tile_state_name(uint8_t code);
const char* color_tile_state_description(uint8_t code);
// Display colour of a state for maps and legends (RGBA8, R in the low byte, alpha 255).
uint32_t color_tile_state_swatch(uint8_t code);

}  // namespace tessera
