// The slice of HDF5's C ABI that the filter plugin touches, written out here so that building
// the plugin needs no HDF5 headers and linking it needs no libhdf5. Every value and layout
// below has been the same from HDF5 1.10 (when hid_t became 64-bit) to 2.x.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sciz::h5abi {

using hid_t = int64_t;
using herr_t = int;
using htri_t = int;
using hsize_t = uint64_t;
using filter_t = int;  // H5Z_filter_t

inline constexpr unsigned kFlagOptional = 0x0001;  // H5Z_FLAG_OPTIONAL
inline constexpr unsigned kFlagReverse = 0x0100;   // H5Z_FLAG_REVERSE: the read direction
inline constexpr int kClassVersion = 1;            // H5Z_CLASS_T_VERS, for the struct below
inline constexpr int kPluginTypeFilter = 0;        // H5PL_TYPE_FILTER
inline constexpr int kClassFloat = 1;              // H5T_FLOAT in H5T_class_t
inline constexpr int kOrderLittle = 0;             // H5T_ORDER_LE in H5T_order_t
inline constexpr hid_t kDefaultErrorStack = 0;     // H5E_DEFAULT

using CanApplyFn = htri_t (*)(hid_t dcpl, hid_t type, hid_t space);
using SetLocalFn = herr_t (*)(hid_t dcpl, hid_t type, hid_t space);
using FilterFn = size_t (*)(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                            size_t* buf_size, void** buf);

// H5Z_class2_t, what H5PLget_plugin_info returns for a filter.
struct FilterClass {
  int version;
  filter_t id;
  unsigned encoder_present;
  unsigned decoder_present;
  const char* name;
  CanApplyFn can_apply;
  SetLocalFn set_local;
  FilterFn filter;
};

}  // namespace sciz::h5abi
