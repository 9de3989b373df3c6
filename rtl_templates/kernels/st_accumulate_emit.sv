// st_accumulate_emit: the accumulate/emit back end shared by st_matmul and st_reduce. The kernel
// computes, per input token, Cells exact signed partial values (combinationally, part_i); this
// module registers them (stage 1), combines Count consecutive tokens per cell into an exact
// AccBits-wide accumulator (stage 2: the sum, or with Combiner = 1 the largest value) and, on the
// last token of a group, saturates every cell (st_saturate, signed or unsigned OutBits range)
// into the result register, which leaves through the output register slice (st_skid_buffer).
// Then the next group starts; it runs indefinitely.
//
// All stages advance together on advance_o, the slice's registered ready; take_i (the kernel's
// input handshake, only while advance_o) loads part_i into stage 1. With ideal streams token j
// of a group is taken in cycle j and the group's result leaves in cycle Count + 2. Cells are
// packed as the kernels' streams: cell c at bits [c*Bits +: Bits].
`default_nettype none

module st_accumulate_emit #(
    /// Independent accumulators (>= 1).
    parameter int unsigned Cells = 4,
    /// Width of each signed partial value (>= 2).
    parameter int unsigned PartBits = 16,
    /// Width of the exact accumulator (>= PartBits).
    parameter int unsigned AccBits = 18,
    /// Output code width (1 .. 64; per OutSigned).
    parameter int unsigned OutBits = 16,
    /// 1: results saturate to the signed OutBits range, 0: to the unsigned one.
    parameter int unsigned OutSigned = 1,
    /// Tokens combined into one result (>= 1).
    parameter int unsigned Count = 4,
    /// 0: sum, 1: max.
    parameter int unsigned Combiner = 0
) (
    input  wire                       clk_i,
    input  wire                       rst_ni,     // synchronous, active low
    input  wire                       take_i,     // a token enters stage 1 (only when advance_o)
    output logic                      advance_o,  // every stage of the kernel advances
    input  wire  [Cells*PartBits-1:0] part_i,     // the token's signed partial values
    output logic                      valid_o,
    input  wire                       ready_i,
    output logic [ Cells*OutBits-1:0] data_o
);

  if (Cells < 1 || Count < 1 || PartBits < 2 || AccBits < PartBits) begin : gen_bad_shape
    $fatal(1, "st_accumulate_emit: Cells, Count >= 1; PartBits >= 2; AccBits >= PartBits");
  end
  if (Combiner > 1) begin : gen_bad_combiner
    $fatal(1, "st_accumulate_emit: Combiner must be 0 (sum) or 1 (max)");
  end

  localparam bit IsMax = (Combiner == 1);
  localparam int unsigned CountBits = (Count > 1) ? $clog2(Count) : 1;

  // ---- control: stage 1 valid, stage 2 valid (a finished result) -----------------------------
  logic advance;  // the register slice can take a token this cycle
  assign advance_o = advance;

  logic part_valid_q, result_valid_q;
  logic [CountBits-1:0] count_q;  // token index (within its group) of the partials in stage 1
  wire first_token = (count_q == '0);
  wire last_token = (Count == 1) || (count_q == CountBits'(Count - 1));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      part_valid_q <= 1'b0;
      result_valid_q <= 1'b0;
      count_q <= '0;
    end else if (advance) begin
      part_valid_q <= take_i;
      result_valid_q <= part_valid_q && last_token;
      if (part_valid_q) count_q <= last_token ? '0 : count_q + CountBits'(1);
    end
  end

  logic [Cells*OutBits-1:0] result_q;

  for (genvar c = 0; c < Cells; c++) begin : gen_cell
    // stage 1: the partial value
    logic signed [PartBits-1:0] part_q;
    always_ff @(posedge clk_i) begin
      if (take_i) part_q <= part_i[c*PartBits+:PartBits];
    end

    // stage 2: combine over tokens; on the last token saturate into the result register
    logic signed [AccBits-1:0] acc_q;
    wire signed [AccBits-1:0] part_wide = AccBits'(part_q);
    // (The sum clears the accumulator operand on the first token rather than selecting after
    // the adder: the same value, and fewer LUTs.)
    wire signed [AccBits-1:0] combined =
        IsMax ? (first_token ? part_wide : (part_wide > acc_q) ? part_wide : acc_q) :
        ((first_token ? AccBits'(0) : acc_q) + part_wide);
    logic [OutBits-1:0] code;
    st_saturate #(
        .InBits   (AccBits),
        .OutBits  (OutBits),
        .OutSigned(OutSigned)
    ) u_saturate (
        .value_i(combined),
        .code_o (code)
    );
    always_ff @(posedge clk_i) begin
      if (advance && part_valid_q) begin
        acc_q <= combined;
        if (last_token) result_q[c*OutBits+:OutBits] <= code;
      end
    end
  end

  // ---- output register slice ------------------------------------------------------------------
  st_skid_buffer #(
      .Width(Cells * OutBits)
  ) u_output_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(result_valid_q),
      .ready_o(advance),
      .data_i (result_q),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

endmodule

`default_nettype wire
