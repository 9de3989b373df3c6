// st_fork: 1 -> N broadcast of a valid/ready stream (eager fork).
//
// Every input token is offered to all N branches at once. Each branch has its own ready; a branch
// that has taken the current token is marked done and is not offered it again, so the branches
// need not be ready in the same cycle. The input token is consumed in the cycle its last
// outstanding branch takes it. Sustains one token per cycle when every branch is ready.
//
// Combinational: data_o is data_i replicated, valid_o depends on valid_i and ready_o on ready_i
// (no register on the data path, zero latency). State: one done flag per branch. The payload is
// stable while a branch stalls because the input must hold it until ready_o.
//
// Ports are flattened: branch i is valid_o[i], ready_i[i], data_o[i*Width +: Width].
`default_nettype none

module st_fork #(
    /// Number of output branches (>= 1).
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
    // downstream branches
    output logic [N-1:0]       valid_o,
    input  wire  [N-1:0]       ready_i,
    output logic [N*Width-1:0] data_o
);

  if (N < 1) begin : gen_bad_n
    $fatal(1, "st_fork: N must be >= 1");
  end
  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_fork: Width must be >= 1");
  end

  // done_q[i]: branch i has already taken the current input token.
  logic [N-1:0] done_q;

  assign valid_o = {N{valid_i}} & ~done_q;
  assign data_o  = {N{data_i}};
  // The token leaves when every branch has taken it before or takes it now.
  assign ready_o = &(done_q | ready_i);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      done_q <= '0;
    end else if (valid_i && ready_o) begin
      done_q <= '0;
    end else begin
      done_q <= done_q | (valid_o & ready_i);
    end
  end

`ifndef SYNTHESIS
  // Without an input token no branch can have taken anything.
  always_ff @(posedge clk_i) begin
    if (rst_ni && !valid_i) assert (done_q == '0);
  end
`endif

endmodule

`default_nettype wire
