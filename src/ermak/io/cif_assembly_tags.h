#pragma once
// Why an mmCIF's biological assemblies were not read. gemmi (0.5) takes the assemblies from
// four categories and reads none of a category's rows when one of its tags is missing, so a
// hand-edited or converted file with `_pdbx_struct_assembly` but without, say,
// `.oligomeric_count` seems to list no assembly at all; `--assembly 1` then needs the reason
// (docs/topology.md#assemblies-and-symmetry).
#include <string>
#include <vector>

namespace ermak {

// For the tags of an mmCIF block (full names, any case, e.g. "_pdbx_struct_assembly.id"):
// one line per assembly category that is present but lacks a tag gemmi needs, e.g.
// "_pdbx_struct_assembly lacks .oligomeric_details, .oligomeric_count". Empty when every
// category present is complete (or none is present).
std::vector<std::string> incomplete_assembly_categories(const std::vector<std::string>& tags);

}  // namespace ermak
