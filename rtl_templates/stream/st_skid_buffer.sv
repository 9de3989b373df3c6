// st_skid_buffer: full-throughput register slice for a valid/ready stream.
//
// Registers both directions of the handshake: valid_o/data_o come from a main register and
// ready_o from a flop, so no combinational path crosses the slice. A second (skid) register
// holds the token that arrives in the cycle the consumer first stalls. Sustains one token per
// cycle; latency one cycle. Put one on every stream that leaves a kernel.
`default_nettype none

module st_skid_buffer #(
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32
) (
    input  wire              clk_i,
    input  wire              rst_ni,   // synchronous, active low
    // upstream
    input  wire              valid_i,
    output logic             ready_o,
    input  wire  [Width-1:0] data_i,
    // downstream
    output logic             valid_o,
    input  wire              ready_i,
    output logic [Width-1:0] data_o
);

  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_skid_buffer: Width must be >= 1");
  end

  logic main_valid_q, skid_valid_q;
  logic [Width-1:0] main_q, skid_q;

  // The main register can load when it is empty or its token leaves this cycle.
  wire main_load = ready_i || !main_valid_q;

  assign ready_o = !skid_valid_q;
  assign valid_o = main_valid_q;
  assign data_o  = main_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      main_valid_q <= 1'b0;
      skid_valid_q <= 1'b0;
    end else if (main_load) begin
      main_valid_q <= skid_valid_q || valid_i;
      skid_valid_q <= 1'b0;
    end else if (valid_i && ready_o) begin
      skid_valid_q <= 1'b1;
    end
  end

  // Payload registers are not reset.
  always_ff @(posedge clk_i) begin
    if (main_load) begin
      main_q <= skid_valid_q ? skid_q : data_i;
    end
    if (!main_load && valid_i && ready_o) begin
      skid_q <= data_i;
    end
  end

`ifndef SYNTHESIS
  // A token is never accepted while the skid register is full.
  always_ff @(posedge clk_i) begin
    if (rst_ni && skid_valid_q) assert (!ready_o);
  end
`endif

endmodule

`default_nettype wire
