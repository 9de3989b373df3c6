# Out-of-context constraints of a streamtensor kernel on the Alveo U55C, read by the generated
# vivado/build.tcl after <top>_clocks.xdc (which creates ap_clk at the kernel frequency of
# constraints/u55c.yaml). In the Vitis shell every kernel port connects to a register of the
# shell's interconnect on the same ap_clk: the I/O paths are constrained against ap_clk with no
# external delay, so the out-of-context timing covers the kernel's own register-to-port logic;
# v++ applies the platform's real constraints when it links the kernel.
set_input_delay -clock ap_clk 0.000 [get_ports -filter {DIRECTION == IN && NAME != ap_clk}]
set_output_delay -clock ap_clk 0.000 [get_ports -filter {DIRECTION == OUT}]
