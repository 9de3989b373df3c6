// st_rr_demux: 1 -> N round-robin split of a valid/ready stream.
//
// Input token k goes to output k mod N: token 0 to output 0, token 1 to output 1, ..., token N
// to output 0 again. The demux waits for the ready of the output whose turn it is, so the order
// is deterministic and st_rr_mux (Strict=1) merges the N streams back into the original one.
// Sustains one token per cycle when the outputs are ready.
//
// Combinational: data_o is data_i replicated to every output (only the selected one is valid),
// valid_o and ready_o depend on valid_i and ready_i (no register on the data path, zero latency).
// State: the index of the output whose turn it is. The payload is stable while an output stalls
// because the input must hold it until ready_o.
//
// Ports are flattened: output i is valid_o[i], ready_i[i], data_o[i*Width +: Width].
`default_nettype none

module st_rr_demux #(
    /// Number of output streams (>= 1).
    parameter int unsigned N = 2,
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32
) (
    input  wire                clk_i,
    input  wire                rst_ni,   // synchronous, active low
    // upstream
    input  wire                valid_i,
    output logic               ready_o,
    input  wire  [Width-1:0]   data_i,
    // downstream
    output logic [N-1:0]       valid_o,
    input  wire  [N-1:0]       ready_i,
    output logic [N*Width-1:0] data_o
);

  if (N < 1) begin : gen_bad_n
    $fatal(1, "st_rr_demux: N must be >= 1");
  end
  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_rr_demux: Width must be >= 1");
  end

  localparam int unsigned IdxWidth = (N > 1) ? $clog2(N) : 1;

  // The output whose turn it is.
  logic [IdxWidth-1:0] turn_q;
  logic [N-1:0] turn_onehot;

  for (genvar i = 0; i < N; i++) begin : gen_select
    assign turn_onehot[i] = (turn_q == IdxWidth'(i));
  end

  assign valid_o = {N{valid_i}} & turn_onehot;
  assign ready_o = |(ready_i & turn_onehot);
  assign data_o  = {N{data_i}};

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      turn_q <= '0;
    end else if (valid_i && ready_o) begin
      turn_q <= (turn_q == IdxWidth'(N - 1)) ? '0 : turn_q + 1'b1;
    end
  end

`ifndef SYNTHESIS
  // The turn always names an existing output.
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (turn_onehot != '0);
  end
`endif

endmodule

`default_nettype wire
