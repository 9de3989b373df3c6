// st_join: N -> 1 synchronized join of valid/ready streams.
//
// Emits one output token when every input offers one; the output payload is the N input
// payloads concatenated, input i at data_o[i*Width +: Width]. All N inputs are consumed together
// in the cycle the output token is taken, so each input token is used exactly once. Sustains one
// token per cycle when all inputs have tokens and the consumer is ready.
//
// Combinational and stateless: valid_o is the AND of valid_i, ready_o[i] is ready_i && valid_o,
// data_o is data_i (zero latency). The payload is stable while the output stalls because every
// input must hold its token until its ready_o.
//
// Ports are flattened: input i is valid_i[i], ready_o[i], data_i[i*Width +: Width].
`default_nettype none

module st_join #(
    /// Number of input streams (>= 1).
    parameter int unsigned N = 2,
    /// Payload width of one input in bits (>= 1); the output is N*Width bits wide.
    parameter int unsigned Width = 32
) (
    // The join holds no state: clock and reset are kept for the uniform port list of the
    // stream library and used only by the simulation assertion below.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                clk_i,
    input  wire                rst_ni,   // synchronous, active low
    /* verilator lint_on UNUSEDSIGNAL */
    // upstream
    input  wire  [N-1:0]       valid_i,
    output logic [N-1:0]       ready_o,
    input  wire  [N*Width-1:0] data_i,
    // downstream
    output logic               valid_o,
    input  wire                ready_i,
    output logic [N*Width-1:0] data_o
);

  if (N < 1) begin : gen_bad_n
    $fatal(1, "st_join: N must be >= 1");
  end
  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_join: Width must be >= 1");
  end

  assign valid_o = &valid_i;
  assign ready_o = {N{valid_o && ready_i}};
  assign data_o  = data_i;

`ifndef SYNTHESIS
  // Inputs are consumed all together or not at all.
  always_ff @(posedge clk_i) begin
    if (rst_ni) assert (ready_o == '0 || ready_o == '1);
  end
`endif

endmodule

`default_nettype wire
