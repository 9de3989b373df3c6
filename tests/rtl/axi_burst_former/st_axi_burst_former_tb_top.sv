// st_axi_burst_former_tb_top: test top for st_axi_burst_former. Carries each side's payload on
// one port, so the testbench drives and checks them as single streams: the input token is
// {last, word address}, the output token is {len, burst address}.
`default_nettype none

module st_axi_burst_former_tb_top #(
    /// Address width in bits.
    parameter int unsigned AddrWidth = 64,
    /// Bytes per bus word.
    parameter int unsigned WordBytes = 64,
    /// Longest burst in beats.
    parameter int unsigned MaxBurstLen = 64
) (
    input  wire                   clk_i,
    input  wire                   rst_ni,
    input  wire                   valid_i,
    output logic                  ready_o,
    input  wire  [   AddrWidth:0] data_i,   // {last, addr}
    output logic                  valid_o,
    input  wire                   ready_i,
    output logic [AddrWidth+7:0]  data_o,   // {len, addr}
    output logic                  idle_o
);

  st_axi_burst_former #(
      .AddrWidth  (AddrWidth),
      .WordBytes  (WordBytes),
      .MaxBurstLen(MaxBurstLen)
  ) u_dut (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(valid_i),
      .ready_o(ready_o),
      .addr_i (data_i[AddrWidth-1:0]),
      .last_i (data_i[AddrWidth]),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .addr_o (data_o[AddrWidth-1:0]),
      .len_o  (data_o[AddrWidth+:8]),
      .idle_o (idle_o)
  );

endmodule

`default_nettype wire
