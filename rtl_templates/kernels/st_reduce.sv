// st_reduce: sum or max reduction along one dimension for synthetic tensor graphs. An input token
// is a tile of OuterLanes x ReduceLanes x InnerLanes elements, element (o, r, i) at index
// (o*ReduceLanes + r)*InnerLanes + i; the reduced dimension runs over r within a token and over
// Tokens consecutive tokens. After Tokens input tokens the kernel emits one token of
// OuterLanes x InnerLanes results, element (o, i) at index o*InnerLanes + i:
//   Combiner 0 (sum): sat_OutBits(exact sum of the Tokens*ReduceLanes elements)
//   Combiner 1 (max): sat_OutBits(the largest of them)
// and starts the next output. It runs indefinitely. Codes are signed, or unsigned where
// InSigned/OutSigned is 0 (an unsigned output saturates to 0 .. 2^OutBits - 1).
//
// Pipeline: 1 the combination over r within the token (exact, registered), 2 the running
// combination over tokens (exact, AccBits wide) and, on the last token of an output, the
// saturated results into the result register, 3 the output register slice (st_skid_buffer);
// stages 1-3 are st_accumulate_emit, shared with st_matmul. With ideal streams input token j of
// an output is taken in cycle j and the output leaves in cycle Tokens + 2
// (compiler/model/reduce_model.h).
`default_nettype none

module st_reduce #(
    /// Independent rows before the reduced dimension within a token (>= 1).
    parameter int unsigned OuterLanes = 1,
    /// Reduced elements per row within a token (>= 1).
    parameter int unsigned ReduceLanes = 4,
    /// Independent columns after the reduced dimension within a token (>= 1).
    parameter int unsigned InnerLanes = 1,
    /// Input tokens combined into one output token (>= 1).
    parameter int unsigned Tokens = 4,
    /// Input code width (2 .. 48; signed or unsigned per InSigned).
    parameter int unsigned InBits = 8,
    /// Output code width (2 .. 64; per OutSigned).
    parameter int unsigned OutBits = 32,
    /// 0: sum, 1: max.
    parameter int unsigned Combiner = 0,
    /// 1: input codes are signed, 0: unsigned.
    parameter int unsigned InSigned = 1,
    /// 1: results saturate to the signed OutBits range, 0: to the unsigned one.
    parameter int unsigned OutSigned = 1
) (
    input  wire                                           clk_i,
    input  wire                                           rst_ni,   // synchronous, active low
    input  wire                                           valid_i,
    output logic                                          ready_o,
    input  wire  [OuterLanes*ReduceLanes*InnerLanes*InBits-1:0] data_i,
    output logic                                          valid_o,
    input  wire                                           ready_i,
    output logic [       OuterLanes*InnerLanes*OutBits-1:0] data_o
);

  if (OuterLanes < 1 || ReduceLanes < 1 || InnerLanes < 1 || Tokens < 1) begin : gen_bad_shape
    $fatal(1, "st_reduce: OuterLanes, ReduceLanes, InnerLanes and Tokens must be >= 1");
  end
  if (InBits < 2 || InBits > 48 || OutBits < 2 || OutBits > 64) begin : gen_bad_bits
    $fatal(1, "st_reduce: InBits must be 2 .. 48, OutBits 2 .. 64");
  end
  if (Combiner > 1) begin : gen_bad_combiner
    $fatal(1, "st_reduce: Combiner must be 0 (sum) or 1 (max)");
  end

  // An unsigned code takes one bit more as a signed value (InExt); a sum of n values needs
  // clog2(n) bits more, a max none.
  localparam bit IsMax = (Combiner == 1);
  localparam int unsigned InExt = InBits + ((InSigned != 0) ? 0 : 1);
  localparam int unsigned PartBits = IsMax ? InExt : InExt + $clog2(ReduceLanes);
  localparam int unsigned AccBits = IsMax ? InExt : PartBits + $clog2(Tokens);
  localparam int unsigned Cells = OuterLanes * InnerLanes;

  logic advance;  // the register slice can take a token this cycle
  wire take = valid_i && advance;
  assign ready_o = advance;

  // ---- stage 1 input: combine the ReduceLanes elements of each (o, i) in the token, exact -----
  logic [Cells*PartBits-1:0] parts;

  for (genvar o = 0; o < OuterLanes; o++) begin : gen_outer
    for (genvar i = 0; i < InnerLanes; i++) begin : gen_inner
      logic signed [PartBits-1:0] part;
      always_comb begin
        part = '0;
        for (int unsigned r = 0; r < ReduceLanes; r++) begin
          logic [InBits-1:0] in_code;
          logic signed [PartBits-1:0] element;
          in_code = data_i[((o*ReduceLanes+r)*InnerLanes+i)*InBits+:InBits];
          element = PartBits'($signed({InSigned != 0 && in_code[InBits-1], in_code}));
          if (r == 0) part = element;
          else if (IsMax) part = (element > part) ? element : part;
          else part = part + element;
        end
      end
      assign parts[(o*InnerLanes+i)*PartBits+:PartBits] = part;
    end
  end

  // ---- stages 1-2 and the output register slice: combine over Tokens, saturate, emit ---------
  st_accumulate_emit #(
      .Cells    (Cells),
      .PartBits (PartBits),
      .AccBits  (AccBits),
      .OutBits  (OutBits),
      .OutSigned(OutSigned),
      .Count    (Tokens),
      .Combiner (Combiner)
  ) u_accumulate (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .take_i   (take),
      .advance_o(advance),
      .part_i   (parts),
      .valid_o  (valid_o),
      .ready_i  (ready_i),
      .data_o   (data_o)
  );

endmodule

`default_nettype wire
