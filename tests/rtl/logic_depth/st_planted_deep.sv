// st_planted_deep: a deliberately deep combinational path between two registers, for the logic
// depth check's own test (synth.logic_depth.planted must report it over the limit). Not a
// template: Stages dependent rotate-and-add steps of a Width-bit word in one cycle.
`default_nettype none

module st_planted_deep #(
    parameter int unsigned Width = 16,
    parameter int unsigned Stages = 8
) (
    input  wire              clk_i,
    input  wire  [Width-1:0] data_i,
    output logic [Width-1:0] data_o
);
  logic [Width-1:0] in_q;
  logic [Width-1:0] chain[Stages+1];
  assign chain[0] = in_q;
  for (genvar s = 0; s < Stages; s++) begin : gen_stage
    assign chain[s+1] = chain[s] + {chain[s][0], chain[s][Width-1:1]};
  end
  always_ff @(posedge clk_i) begin
    in_q   <= data_i;
    data_o <= chain[Stages];
  end
endmodule

`default_nettype wire
