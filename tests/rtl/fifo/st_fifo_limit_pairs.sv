// st_fifo_limit_pairs: test wrapper for the run-time depth limit of st_fifo (LimitPort = 1).
// Holds NumPairs independent pairs; pair k is a reference FIFO of Depth = depth(k) and memory
// RefStyle beside a FIFO of Depth = MaxDepth and memory LimStyle whose limit_i is driven from
// limits_i[16k +: 16]. Both FIFOs of a pair see the same valid_i, data_i and ready_i; the test
// (tb_fifo_limit.cpp) checks that their outputs agree in every cycle.
`default_nettype none

module st_fifo_limit_pairs #(
    parameter int unsigned Width = 8,
    parameter int unsigned MaxDepth = 64,
    parameter RefStyle = "auto",
    parameter LimStyle = "distributed"
) (
    input  wire                                     clk_i,
    input  wire                                     rst_ni,
    input  wire  [                    NumPairs-1:0] valid_i,
    input  wire  [              NumPairs*Width-1:0] data_i,
    input  wire  [                    NumPairs-1:0] ready_i,
    input  wire  [                 NumPairs*16-1:0] limits_i,
    output logic [                    NumPairs-1:0] ref_ready_o,
    output logic [                    NumPairs-1:0] ref_valid_o,
    output logic [              NumPairs*Width-1:0] ref_data_o,
    output logic [                 NumPairs*16-1:0] ref_count_o,
    output logic [                    NumPairs-1:0] lim_ready_o,
    output logic [                    NumPairs-1:0] lim_valid_o,
    output logic [              NumPairs*Width-1:0] lim_data_o,
    output logic [                 NumPairs*16-1:0] lim_count_o
);
  /// The reference depths; the testbench lists the same ones.
  localparam int unsigned NumPairs = 7;
  function automatic int unsigned depth(input int unsigned k);
    case (k)
      0: depth = 1;
      1: depth = 2;
      2: depth = 3;
      3: depth = 4;
      4: depth = 5;
      5: depth = 17;
      default: depth = 64;
    endcase
  endfunction

  localparam int unsigned LimCountWidth = $clog2(MaxDepth + 1);

  for (genvar k = 0; k < NumPairs; ++k) begin : gen_pair
    localparam int unsigned RefDepth = depth(k);
    localparam int unsigned RefCountWidth = $clog2(RefDepth + 1);
    logic [RefCountWidth-1:0] ref_count;
    logic [LimCountWidth-1:0] lim_count;
    /* verilator lint_off PINCONNECTEMPTY */
    st_fifo #(
        .Width(Width),
        .Depth(RefDepth),
        .RamStyle(RefStyle)
    ) u_ref (
        .clk_i, .rst_ni,
        .valid_i(valid_i[k]), .ready_o(ref_ready_o[k]), .data_i(data_i[k*Width+:Width]),
        .valid_o(ref_valid_o[k]), .ready_i(ready_i[k]), .data_o(ref_data_o[k*Width+:Width]),
        .count_o(ref_count), .max_count_o(), .limit_i('0)
    );
    st_fifo #(
        .Width(Width),
        .Depth(MaxDepth),
        .RamStyle(LimStyle),
        .LimitPort(1)
    ) u_lim (
        .clk_i, .rst_ni,
        .valid_i(valid_i[k]), .ready_o(lim_ready_o[k]), .data_i(data_i[k*Width+:Width]),
        .valid_o(lim_valid_o[k]), .ready_i(ready_i[k]), .data_o(lim_data_o[k*Width+:Width]),
        .count_o(lim_count), .max_count_o(), .limit_i(limits_i[k*16+:LimCountWidth])
    );
    /* verilator lint_on PINCONNECTEMPTY */
    assign ref_count_o[k*16+:16] = 16'(ref_count);
    assign lim_count_o[k*16+:16] = 16'(lim_count);
  end
endmodule

`default_nettype wire
