#include "spirv_patch.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <spirv-tools/libspirv.hpp>
#include <spirv/unified1/spirv.hpp11>

namespace tessera::layer {
namespace {

using Words = std::vector<uint32_t>;

struct Inst {
  spv::Op op;
  Words w;  // the whole instruction, word 0 included
};

constexpr uint32_t kHeaderWords = 5;

// Splits a module into instructions; false on a bad header or a truncated instruction.
bool parse(const Words& words, std::vector<Inst>& out) {
  if (words.size() < kHeaderWords || words[0] != spv::MagicNumber) return false;
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size()) return false;
    out.push_back({spv::Op(words[at] & 0xFFFF), Words(words.begin() + at, words.begin() + at + count)});
    at += count;
  }
  return true;
}

std::string literal_string(const Words& w, size_t first) {
  std::string s;
  for (size_t i = first; i < w.size(); ++i)
    for (int b = 0; b < 4; ++b) {
      const char c = char((w[i] >> (8 * b)) & 0xFF);
      if (c == '\0') return s;
      s += c;
    }
  return s;
}

// Words taken by a literal string (with its terminating zero).
size_t string_words(const std::string& s) { return s.size() / 4 + 1; }

Inst make(spv::Op op, std::initializer_list<uint32_t> operands) {
  Inst i{op, {0}};
  i.w.insert(i.w.end(), operands);
  i.w[0] = (uint32_t(i.w.size()) << 16) | uint32_t(op);
  return i;
}

bool is_preamble(spv::Op op) {  // sections up to and including the annotations
  switch (op) {
    case spv::Op::OpCapability:
    case spv::Op::OpExtension:
    case spv::Op::OpExtInstImport:
    case spv::Op::OpMemoryModel:
    case spv::Op::OpEntryPoint:
    case spv::Op::OpExecutionMode:
    case spv::Op::OpExecutionModeId:
    case spv::Op::OpString:
    case spv::Op::OpSourceExtension:
    case spv::Op::OpSource:
    case spv::Op::OpSourceContinued:
    case spv::Op::OpName:
    case spv::Op::OpMemberName:
    case spv::Op::OpModuleProcessed:
    case spv::Op::OpDecorate:
    case spv::Op::OpMemberDecorate:
    case spv::Op::OpDecorationGroup:
    case spv::Op::OpGroupDecorate:
    case spv::Op::OpGroupMemberDecorate:
    case spv::Op::OpDecorateId:
    case spv::Op::OpDecorateString:
    case spv::Op::OpMemberDecorateString:
    case spv::Op::OpNop: return true;
    default: return false;
  }
}

spv::ExecutionModel model_of(PreRasterStage s) {
  switch (s) {
    case PreRasterStage::kVertex: return spv::ExecutionModel::Vertex;
    case PreRasterStage::kTessellationEvaluation: return spv::ExecutionModel::TessellationEvaluation;
    case PreRasterStage::kGeometry: return spv::ExecutionModel::Geometry;
  }
  return spv::ExecutionModel::Vertex;
}

// The entry point instruction's index for `name` (and `model` unless it is null), or -1.
int find_entry(const std::vector<Inst>& insts, const std::string& name, const spv::ExecutionModel* model) {
  for (size_t i = 0; i < insts.size(); ++i) {
    const Inst& in = insts[i];
    if (in.op != spv::Op::OpEntryPoint || in.w.size() < 4) continue;
    if (model && spv::ExecutionModel(in.w[1]) != *model) continue;
    if (literal_string(in.w, 3) == name) return int(i);
  }
  return -1;
}

SpirvPatch fail(const std::string& reason, const std::string& detail) {
  SpirvPatch p;
  p.skip_reason = reason;
  p.detail = detail;
  return p;
}

std::string validate(const Words& words, spv_target_env env) {
  spvtools::SpirvTools tools(env);
  std::string message;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    if (message.empty()) message = m;
  });
  spvtools::ValidatorOptions options;
  // Block layouts are the application's and untouched here; the device may allow layouts the
  // default rules reject (scalarBlockLayout and friends).
  options.SetSkipBlockLayout(true);
  return tools.Validate(words.data(), words.size(), options) ? std::string() : (message.empty() ? "invalid" : message);
}

}  // namespace

uint64_t module_hash(const uint32_t* words, size_t count) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < count; ++i)
    for (int b = 0; b < 4; ++b) {
      h ^= (words[i] >> (8 * b)) & 0xFF;
      h *= 1099511628211ull;
    }
  return h;
}

spv_target_env target_env(uint32_t api_version, uint32_t spirv_version) {
  const uint32_t major = (api_version >> 22) & 0x7F, minor = (api_version >> 12) & 0x3FF;
  const uint32_t v = major * 1000 + minor;
  if (v >= 1003) return SPV_ENV_VULKAN_1_3;
  if (v >= 1002) return SPV_ENV_VULKAN_1_2;
  if (v >= 1001) return spirv_version >= 0x10400 ? SPV_ENV_VULKAN_1_1_SPIRV_1_4 : SPV_ENV_VULKAN_1_1;
  return SPV_ENV_VULKAN_1_0;
}

uint32_t entry_instruction_count(const std::vector<uint32_t>& words, const std::string& entry) {
  std::vector<Inst> insts;
  if (!parse(words, insts)) return 0;
  const int e = find_entry(insts, entry, nullptr);
  if (e < 0) return 0;
  // Each function's body instructions and callees.
  struct Function {
    uint32_t count = 0;
    std::vector<uint32_t> callees;
  };
  std::unordered_map<uint32_t, Function> functions;
  Function* current = nullptr;
  for (const Inst& in : insts) {
    switch (in.op) {
      case spv::Op::OpFunction: current = in.w.size() > 2 ? &functions[in.w[2]] : nullptr; break;
      case spv::Op::OpFunctionEnd: current = nullptr; break;
      case spv::Op::OpLabel:
      case spv::Op::OpFunctionParameter:
      case spv::Op::OpVariable:
      case spv::Op::OpLine:
      case spv::Op::OpNoLine: break;
      default:
        if (!current) break;
        ++current->count;
        if (in.op == spv::Op::OpFunctionCall && in.w.size() > 3) current->callees.push_back(in.w[3]);
    }
  }
  uint32_t total = 0;
  std::unordered_set<uint32_t> seen;
  std::vector<uint32_t> todo{insts[size_t(e)].w[2]};
  while (!todo.empty()) {
    const uint32_t id = todo.back();
    todo.pop_back();
    if (!seen.insert(id).second) continue;
    auto it = functions.find(id);
    if (it == functions.end()) continue;
    total += it->second.count;
    todo.insert(todo.end(), it->second.callees.begin(), it->second.callees.end());
  }
  return total;
}

SpirvPatch patch_for_capture(const std::vector<uint32_t>& words, const std::string& entry, PreRasterStage stage,
                             spv_target_env env) {
  std::vector<Inst> insts;
  if (!parse(words, insts)) return fail("patch_failed", "not a SPIR-V module");
  const spv::ExecutionModel model = model_of(stage);
  const int entry_index = find_entry(insts, entry, &model);
  if (entry_index < 0) return fail("patch_failed", "no entry point '" + entry + "' of that stage");
  const uint32_t entry_id = insts[size_t(entry_index)].w[2];
  const size_t entry_name_words = string_words(entry);
  const Words interface(insts[size_t(entry_index)].w.begin() + 3 + long(entry_name_words),
                        insts[size_t(entry_index)].w.end());

  // What the module declares.
  std::unordered_map<uint32_t, uint32_t> builtin_of;                 // id -> BuiltIn
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> member_builtin;  // (struct, member) -> BuiltIn
  std::set<std::pair<uint32_t, uint32_t>> member_offset;
  std::unordered_map<uint32_t, uint32_t> location_of;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> pointer;   // id -> (storage class, pointee)
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> variable;  // id -> (pointer type, storage class)
  std::unordered_map<uint32_t, const Inst*> type;
  std::unordered_map<uint32_t, uint32_t> constant;  // 32-bit scalar constants
  uint32_t max_location = 0;
  bool any_location = false;
  for (const Inst& in : insts) {
    const Words& w = in.w;
    switch (in.op) {
      case spv::Op::OpCapability:
        if (w.size() > 1 && spv::Capability(w[1]) == spv::Capability::TransformFeedback)
          return fail("uses_transform_feedback", "module declares TransformFeedback");
        break;
      case spv::Op::OpExecutionMode:
        if (w.size() > 2 && spv::ExecutionMode(w[2]) == spv::ExecutionMode::Xfb)
          return fail("uses_transform_feedback", "module declares Xfb");
        break;
      case spv::Op::OpDecorate:
        if (w.size() < 3) break;
        switch (spv::Decoration(w[2])) {
          case spv::Decoration::XfbBuffer:
          case spv::Decoration::XfbStride: return fail("uses_transform_feedback", "module has Xfb decorations");
          case spv::Decoration::Stream:
            if (w.size() > 3 && w[3] != 0) return fail("geometry_stream", "output on a stream other than 0");
            break;
          case spv::Decoration::BuiltIn:
            if (w.size() > 3) builtin_of[w[1]] = w[3];
            break;
          case spv::Decoration::Location:
            if (w.size() > 3) {
              location_of[w[1]] = w[3];
            }
            break;
          default: break;
        }
        break;
      case spv::Op::OpMemberDecorate:
        if (w.size() < 5) break;
        if (spv::Decoration(w[3]) == spv::Decoration::BuiltIn) member_builtin[{w[1], w[2]}] = w[4];
        if (spv::Decoration(w[3]) == spv::Decoration::Offset) member_offset.insert({w[1], w[2]});
        if (spv::Decoration(w[3]) == spv::Decoration::Stream && w[4] != 0)
          return fail("geometry_stream", "output on a stream other than 0");
        break;
      case spv::Op::OpTypePointer:
        if (w.size() > 3) pointer[w[1]] = {w[2], w[3]};
        type[w[1]] = &in;
        break;
      case spv::Op::OpTypeInt:
      case spv::Op::OpTypeFloat:
      case spv::Op::OpTypeVector:
      case spv::Op::OpTypeStruct:
      case spv::Op::OpTypeArray:
        if (w.size() > 1) type[w[1]] = &in;
        break;
      case spv::Op::OpConstant:
        if (w.size() == 4) constant[w[2]] = w[3];
        break;
      case spv::Op::OpVariable:
        if (w.size() > 3) variable[w[2]] = {w[1], w[3]};
        break;
      case spv::Op::OpEmitStreamVertex:
      case spv::Op::OpEndStreamPrimitive: {
        auto c = w.size() > 1 ? constant.find(w[1]) : constant.end();
        if (c == constant.end() || c->second != 0) return fail("geometry_stream", "emits to a stream other than 0");
        break;
      }
      default: break;
    }
  }
  // Output locations in use (variables of this entry point only matter for the interface).
  for (uint32_t id : interface) {
    auto v = variable.find(id);
    auto l = location_of.find(id);
    if (v == variable.end() || l == location_of.end() ||
        spv::StorageClass(v->second.second) != spv::StorageClass::Output)
      continue;
    // A location's extent: arrays and matrices take more; assume generously 4 for anything
    // non-scalar (the new output only has to avoid every one in use).
    max_location = std::max(max_location, l->second + 4);
    any_location = true;
  }
  auto is_vec4_float = [&](uint32_t t) {
    auto it = type.find(t);
    if (it == type.end() || it->second->op != spv::Op::OpTypeVector || it->second->w[3] != 4) return false;
    auto c = type.find(it->second->w[2]);
    return c != type.end() && c->second->op == spv::Op::OpTypeFloat && c->second->w[2] == 32;
  };

  // Position: a BuiltIn variable, or a member of an output block.
  uint32_t position_var = 0, block_struct = 0, block_member = 0;
  for (uint32_t id : interface) {
    auto v = variable.find(id);
    if (v == variable.end() || spv::StorageClass(v->second.second) != spv::StorageClass::Output) continue;
    auto p = pointer.find(v->second.first);
    if (p == pointer.end()) continue;
    const uint32_t pointee = p->second.second;
    auto b = builtin_of.find(id);
    if (b != builtin_of.end() && spv::BuiltIn(b->second) == spv::BuiltIn::Position) {
      if (!is_vec4_float(pointee)) return fail("patch_failed", "Position is not a vec4 of float32");
      position_var = id;
      break;
    }
    auto t = type.find(pointee);
    if (t == type.end() || t->second->op != spv::Op::OpTypeStruct) continue;
    for (uint32_t m = 0; m + 2 < t->second->w.size(); ++m) {
      auto mb = member_builtin.find({pointee, m});
      if (mb == member_builtin.end() || spv::BuiltIn(mb->second) != spv::BuiltIn::Position) continue;
      if (!is_vec4_float(t->second->w[2 + m])) return fail("patch_failed", "Position is not a vec4 of float32");
      position_var = id;
      block_struct = pointee;
      block_member = m;
    }
    if (position_var) break;
  }
  if (!position_var) return fail("patch_failed", "the entry point writes no Position");
  if (block_struct && member_offset.count({block_struct, block_member}))
    return fail("patch_failed", "the output block already has member offsets");

  uint32_t bound = words[3];
  auto new_id = [&] { return bound++; };
  std::vector<Inst> capabilities{make(spv::Op::OpCapability, {uint32_t(spv::Capability::TransformFeedback)})};
  std::vector<Inst> modes{make(spv::Op::OpExecutionMode, {entry_id, uint32_t(spv::ExecutionMode::Xfb)})};
  std::vector<Inst> decorations;
  std::vector<Inst> globals;
  Words new_interface;

  if (block_struct) {
    decorations.push_back(
        make(spv::Op::OpMemberDecorate, {block_struct, block_member, uint32_t(spv::Decoration::Offset), 0}));
  } else {
    decorations.push_back(make(spv::Op::OpDecorate, {position_var, uint32_t(spv::Decoration::Offset), 0}));
  }
  decorations.push_back(make(spv::Op::OpDecorate, {position_var, uint32_t(spv::Decoration::XfbBuffer), 0}));
  decorations.push_back(
      make(spv::Op::OpDecorate, {position_var, uint32_t(spv::Decoration::XfbStride), kXfbPositionStride}));

  SpirvPatch result;
  if (stage == PreRasterStage::kVertex) {
    // Types: int32, ivec2, the pointers; reused when the module has them (duplicate
    // non-aggregate types are invalid).
    auto find_type = [&](spv::Op op, std::initializer_list<uint32_t> operands) -> uint32_t {
      for (const Inst& in : insts)
        if (in.op == op && in.w.size() == operands.size() + 2 &&
            std::equal(operands.begin(), operands.end(), in.w.begin() + 2))
          return in.w[1];
      for (const Inst& in : globals)
        if (in.op == op && in.w.size() == operands.size() + 2 &&
            std::equal(operands.begin(), operands.end(), in.w.begin() + 2))
          return in.w[1];
      const uint32_t id = new_id();
      Inst i = make(op, {id});
      i.w.insert(i.w.end(), operands);
      i.w[0] = (uint32_t(i.w.size()) << 16) | uint32_t(op);
      globals.push_back(i);
      return id;
    };
    const uint32_t int_type = find_type(spv::Op::OpTypeInt, {32, 1});
    const uint32_t ivec2 = find_type(spv::Op::OpTypeVector, {int_type, 2});
    const uint32_t out_ptr = find_type(spv::Op::OpTypePointer, {uint32_t(spv::StorageClass::Output), ivec2});
    // The index builtins: the module's own input variables when it has them, else new ones.
    auto builtin_input = [&](spv::BuiltIn which) -> std::pair<uint32_t, uint32_t> {  // (variable, value type)
      for (const auto& [id, b] : builtin_of) {
        if (spv::BuiltIn(b) != which) continue;
        auto v = variable.find(id);
        if (v == variable.end() || spv::StorageClass(v->second.second) != spv::StorageClass::Input) continue;
        auto p = pointer.find(v->second.first);
        if (p == pointer.end()) continue;
        if (std::find(interface.begin(), interface.end(), id) == interface.end()) new_interface.push_back(id);
        return {id, p->second.second};
      }
      const uint32_t in_ptr = find_type(spv::Op::OpTypePointer, {uint32_t(spv::StorageClass::Input), int_type});
      const uint32_t id = new_id();
      globals.push_back(make(spv::Op::OpVariable, {in_ptr, id, uint32_t(spv::StorageClass::Input)}));
      decorations.push_back(make(spv::Op::OpDecorate, {id, uint32_t(spv::Decoration::BuiltIn), uint32_t(which)}));
      new_interface.push_back(id);
      return {id, int_type};
    };
    const auto [vi_var, vi_type] = builtin_input(spv::BuiltIn::VertexIndex);
    const auto [ii_var, ii_type] = builtin_input(spv::BuiltIn::InstanceIndex);
    const uint32_t out_var = new_id();
    globals.push_back(make(spv::Op::OpVariable, {out_ptr, out_var, uint32_t(spv::StorageClass::Output)}));
    new_interface.push_back(out_var);
    const uint32_t location = any_location ? max_location : 0;
    decorations.push_back(make(spv::Op::OpDecorate, {out_var, uint32_t(spv::Decoration::Location), location}));
    decorations.push_back(make(spv::Op::OpDecorate, {out_var, uint32_t(spv::Decoration::XfbBuffer), 1}));
    decorations.push_back(make(spv::Op::OpDecorate, {out_var, uint32_t(spv::Decoration::XfbStride), kXfbIdStride}));
    decorations.push_back(make(spv::Op::OpDecorate, {out_var, uint32_t(spv::Decoration::Offset), 0}));
    // The epilogue's ids are fresh at every return: each OpReturn gets its own copy.
    auto load_as_int = [&](std::vector<Inst>& code, uint32_t var, uint32_t value_type) {
      const uint32_t v = new_id();
      code.push_back(make(spv::Op::OpLoad, {value_type, v, var}));
      if (value_type == int_type) return v;
      const uint32_t c = new_id();
      code.push_back(make(spv::Op::OpBitcast, {int_type, c, v}));
      return c;
    };
    result.ids = true;
    result.location = location;
    auto make_epilogue = [&, vi_var = vi_var, vi_type = vi_type, ii_var = ii_var, ii_type = ii_type, ivec2, out_var]() {
      std::vector<Inst> code;
      const uint32_t a = load_as_int(code, vi_var, vi_type);
      const uint32_t b = load_as_int(code, ii_var, ii_type);
      const uint32_t v = new_id();
      code.push_back(make(spv::Op::OpCompositeConstruct, {ivec2, v, a, b}));
      code.push_back(make(spv::Op::OpStore, {out_var, v}));
      return code;
    };
    // Rewrite the entry point's function body: the epilogue before each OpReturn.
    bool in_entry = false;
    std::vector<Inst> body;
    body.reserve(insts.size());
    for (Inst& in : insts) {
      if (in.op == spv::Op::OpFunction && in.w.size() > 2) in_entry = in.w[2] == entry_id;
      if (in_entry && in.op == spv::Op::OpReturn) {
        std::vector<Inst> code = make_epilogue();
        body.insert(body.end(), code.begin(), code.end());
      }
      if (in.op == spv::Op::OpFunctionEnd) in_entry = false;
      body.push_back(std::move(in));
    }
    insts = std::move(body);
  }

  // The entry point's interface grows by the new variables.
  {
    Inst& ep = insts[size_t(entry_index)];
    ep.w.insert(ep.w.end(), new_interface.begin(), new_interface.end());
    ep.w[0] = (uint32_t(ep.w.size()) << 16) | uint32_t(ep.op);
  }

  // Reassemble: capability after the last capability, execution mode after the last entry
  // point, decorations at the end of the preamble, globals before the first function.
  Words out(words.begin(), words.begin() + kHeaderWords);
  size_t last_capability = 0, last_entry = 0, end_preamble = 0, first_function = insts.size();
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].op == spv::Op::OpCapability) last_capability = i;
    if (insts[i].op == spv::Op::OpEntryPoint) last_entry = i;
    if (is_preamble(insts[i].op) && end_preamble == i) end_preamble = i + 1;
    if (insts[i].op == spv::Op::OpFunction && first_function == insts.size()) first_function = i;
  }
  auto emit = [&](const std::vector<Inst>& list) {
    for (const Inst& in : list) out.insert(out.end(), in.w.begin(), in.w.end());
  };
  for (size_t i = 0; i < insts.size(); ++i) {
    if (i == end_preamble) emit(decorations);
    if (i == first_function) emit(globals);
    out.insert(out.end(), insts[i].w.begin(), insts[i].w.end());
    if (i == last_capability) emit(capabilities);
    if (i == last_entry) emit(modes);
  }
  if (first_function == insts.size()) emit(globals);
  out[3] = bound;

  const std::string original_error = validate(words, env);
  if (!original_error.empty()) return fail("patch_failed", "the original module does not validate: " + original_error);
  const std::string error = validate(out, env);
  if (!error.empty()) return fail("patch_failed", "the patched module does not validate: " + error);
  result.words = std::move(out);
  return result;
}

SpirvPatch patch_fragment_input(const std::vector<uint32_t>& words, const std::string& entry, uint32_t location,
                                spv_target_env env) {
  std::vector<Inst> insts;
  if (!parse(words, insts)) return fail("patch_failed", "not a SPIR-V module");
  const spv::ExecutionModel model = spv::ExecutionModel::Fragment;
  const int entry_index = find_entry(insts, entry, &model);
  if (entry_index < 0) return fail("patch_failed", "no fragment entry point '" + entry + "'");
  const Words interface(insts[size_t(entry_index)].w.begin() + 3 + long(string_words(entry)),
                        insts[size_t(entry_index)].w.end());
  // The location must be free among the stage's inputs.
  std::unordered_map<uint32_t, uint32_t> storage;
  std::unordered_map<uint32_t, uint32_t> location_of;
  for (const Inst& in : insts) {
    if (in.op == spv::Op::OpVariable && in.w.size() > 3) storage[in.w[2]] = in.w[3];
    if (in.op == spv::Op::OpDecorate && in.w.size() > 3 && spv::Decoration(in.w[2]) == spv::Decoration::Location)
      location_of[in.w[1]] = in.w[3];
  }
  for (uint32_t id : interface) {
    auto s = storage.find(id);
    auto l = location_of.find(id);
    if (s != storage.end() && l != location_of.end() && spv::StorageClass(s->second) == spv::StorageClass::Input &&
        l->second + 4 > location && l->second <= location)
      return fail("patch_failed", "location in use by the fragment shader");
  }
  uint32_t bound = words[3];
  std::vector<Inst> globals;
  auto find_type = [&](spv::Op op, std::initializer_list<uint32_t> operands) -> uint32_t {
    for (const std::vector<Inst>* list : {&insts, &globals})
      for (const Inst& in : *list)
        if (in.op == op && in.w.size() == operands.size() + 2 &&
            std::equal(operands.begin(), operands.end(), in.w.begin() + 2))
          return in.w[1];
    const uint32_t id = bound++;
    Inst i = make(op, {id});
    i.w.insert(i.w.end(), operands);
    i.w[0] = (uint32_t(i.w.size()) << 16) | uint32_t(op);
    globals.push_back(i);
    return id;
  };
  const uint32_t int_type = find_type(spv::Op::OpTypeInt, {32, 1});
  const uint32_t ivec2 = find_type(spv::Op::OpTypeVector, {int_type, 2});
  const uint32_t ptr = find_type(spv::Op::OpTypePointer, {uint32_t(spv::StorageClass::Input), ivec2});
  const uint32_t var = bound++;
  globals.push_back(make(spv::Op::OpVariable, {ptr, var, uint32_t(spv::StorageClass::Input)}));
  const std::vector<Inst> decorations{make(spv::Op::OpDecorate, {var, uint32_t(spv::Decoration::Location), location}),
                                      make(spv::Op::OpDecorate, {var, uint32_t(spv::Decoration::Flat)})};
  Inst& ep = insts[size_t(entry_index)];
  ep.w.push_back(var);
  ep.w[0] = (uint32_t(ep.w.size()) << 16) | uint32_t(ep.op);
  Words out(words.begin(), words.begin() + kHeaderWords);
  size_t end_preamble = 0, first_function = insts.size();
  for (size_t i = 0; i < insts.size(); ++i) {
    if (is_preamble(insts[i].op) && end_preamble == i) end_preamble = i + 1;
    if (insts[i].op == spv::Op::OpFunction && first_function == insts.size()) first_function = i;
  }
  for (size_t i = 0; i < insts.size(); ++i) {
    if (i == end_preamble)
      for (const Inst& in : decorations) out.insert(out.end(), in.w.begin(), in.w.end());
    if (i == first_function)
      for (const Inst& in : globals) out.insert(out.end(), in.w.begin(), in.w.end());
    out.insert(out.end(), insts[i].w.begin(), insts[i].w.end());
  }
  out[3] = bound;
  const std::string error = validate(out, env);
  if (!error.empty()) return fail("patch_failed", "the patched fragment shader does not validate: " + error);
  SpirvPatch result;
  result.words = std::move(out);
  result.location = location;
  return result;
}

}  // namespace tessera::layer
