# Stubs of the Vivado and Vitis Tcl commands the generated scripts use (tests/vitis): each records
# its call in the log opened as $::st_log — one line per call, fields separated by \x1f:
# <handle> <command> <arg>... — and returns a fresh handle ("<command>#<n>"), so the test can
# follow objects (a register, its parameter) through later calls. A command not stubbed here is
# an error (tclsh's "invalid command name"), so a script cannot use one the test does not know.
set ::st_handle 0
proc st_record {cmd args} {
  incr ::st_handle
  set handle "$cmd#$::st_handle"
  set fields [list $handle $cmd]
  foreach a $args {
    lappend fields [string map [list "\n" " "] $a]
  }
  puts $::st_log [join $fields "\x1f"]
  return $handle
}
namespace eval ipx {}
foreach cmd {
  create_project add_files set_property get_property update_compile_order current_fileset
  close_project package_xo
  ipx::package_project ipx::unload_core ipx::edit_ip_in_project ipx::current_core
  ipx::get_user_parameters ipx::remove_user_parameter ipx::associate_bus_interfaces
  ipx::add_bus_parameter ipx::get_bus_interfaces ipx::add_memory_map ipx::add_address_block
  ipx::add_register ipx::add_register_parameter ipx::create_xgui_files ipx::update_checksums
  ipx::check_integrity ipx::save_core
  read_verilog read_xdc synth_design opt_design place_design route_design report_utilization
  report_timing_summary write_checkpoint
  create_clock get_ports get_clocks set_input_delay set_output_delay
  create_pblock resize_pblock add_cells_to_pblock get_pblocks get_cells get_slrs
  get_clock_regions
} {
  proc $cmd args "st_record $cmd {*}\$args"
}
# A query that finds nothing in a freshly packaged core (the script then adds the object).
proc ipx::get_bus_parameters args {
  st_record ipx::get_bus_parameters {*}$args
  return ""
}
