// st_norm: LayerNorm (GPT-2) or RMSNorm (Llama, Qwen2, Gemma) over a streamed vector, bit-exact
// with st::numerics::normalize (docs/numerics.md §6). Gemma's x * (1 + w) is the RMSNorm mode
// with (1 + w) folded into gamma at compile time (quantizeNorm(..., addOneToGamma)): no hardware.
//
// Streams (element i of a token at bits [i*Bits +: Bits], vector element 0 in token 0):
//   data_i   N/Lanes tokens of Lanes s<InBits> codes per vector (N must be a multiple of Lanes).
//   param_i  N/Lanes tokens of Lanes parameter elements per vector, consumed in the second pass
//            beside the output: gamma (s16 code) in bits [15:0] of an element and, for
//            LayerNorm only, beta (s<OutBits+8>: output LSBs with 8 fraction bits) above it.
//            Streaming them (from HBM, or from an st_block_replayer holding one layer's values)
//            lets one kernel instance serve every layer.
//   data_o   N/Lanes tokens of Lanes s<OutBits> codes per vector.
// Per-vector scalars, sampled in the cycle the first token of a vector is accepted on data_i
// (the compiler ties them to the layer's constants or to a control register):
//   epsilon_i        epsilonTerm (eps in the integer units of D), unsigned, < 2^48;
//   mult_mantissa_i  outputMultiplier mantissa (24 bits), mult_shift_i its shift (0 .. 63).
//
// Arithmetic (S1 = sum x, S2 = sum x^2 over the vector):
//   LayerNorm: u_i = N*x_i - S1, D = N*S2 - S1^2 + eps;  RMSNorm: u_i = x_i, D = S2 + eps
//   (R, k) = rsqrt(max(D, 1)) (st_rsqrt_unit); z_i = round(u_i * R / 2^(k+1))
//   y_i = sat(round((z_i * gamma_i * M + beta_i * 2^(shift+8)) / 2^(shift+16)))
// The last rounding is done as Ph = floor(z*gamma*M / 2^(shift+8)), A = Ph + beta,
// y = (A + 128 - (A < 0 && no bits dropped from Ph)) >>> 8, which is the same integer.
//
// Structure: pass 1 accumulates S1, S2 while writing the vector into one bank of a two-bank
// buffer; a pipelined finalize (N*S2 - S1^2, D, rsqrt) then marks the bank ready; pass 2 reads
// the bank with the parameter stream and runs an 8-stage datapath per lane into a register
// slice. Double buffering: the next vector is accepted into the other bank while one is emitted.
// Timing (ideal streams, T = N/Lanes tokens, cycle 0 = first input handshake): first output at
// T + 20, one output token per cycle, last at 2T + 19 (compiler/model/norm_model.h).
`default_nettype none

module st_norm #(
    /// 1: LayerNorm (mean subtracted, beta added); 0: RMSNorm (also Gemma's, gamma = 1 + w).
    parameter int unsigned LayerNorm = 0,
    /// Vector length (hidden size), 1 .. 16384, a multiple of Lanes.
    parameter int unsigned N = 64,
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Input code width (2 .. 16), signed.
    parameter int unsigned InBits = 16,
    /// Output code width (2 .. 16), signed; beta is OutBits + 8 bits wide.
    parameter int unsigned OutBits = 8,
    /// $readmemh file of the rsqrt table: <build>/tables/rsqrt.mem (target st_tables). Mandatory.
    parameter TableFile = "",
    /// Bits of one element's slot on param_data_i (>= 16 + LayerNorm * (OutBits + 8)): the
    /// record in the low bits, the rest ignored (the HBM image pads records to a power of two).
    parameter int unsigned ParamSlotBits = 16 + LayerNorm * (OutBits + 8)
) (
    input  wire                                              clk_i,
    input  wire                                              rst_ni,           // synchronous, active low
    // input vector
    input  wire                                              valid_i,
    output logic                                             ready_o,
    input  wire  [                        Lanes*InBits-1:0] data_i,
    // per-vector scalars, sampled with the first token of a vector
    input  wire  [                                    47:0] epsilon_i,
    input  wire  [                                    23:0] mult_mantissa_i,
    input  wire  [                                     5:0] mult_shift_i,
    // gamma (and beta) per element, consumed in pass 2
    input  wire                                              param_valid_i,
    output logic                                             param_ready_o,
    /* verilator lint_off UNUSEDSIGNAL */  // a slot's bits above the record
    input  wire  [             Lanes*ParamSlotBits-1:0] param_data_i,
    /* verilator lint_on UNUSEDSIGNAL */
    // normalized output
    output logic                                             valid_o,
    input  wire                                              ready_i,
    output logic [                       Lanes*OutBits-1:0] data_o
);

  if (LayerNorm > 1) begin : gen_bad_mode
    $fatal(1, "st_norm: LayerNorm must be 0 or 1");
  end
  if (Lanes < 1 || N < 1 || N > 16384 || N % Lanes != 0) begin : gen_bad_length
    $fatal(1, "st_norm: N must be 1 .. 16384 and a multiple of Lanes >= 1");
  end
  if (InBits < 2 || InBits > 16) begin : gen_bad_in_bits
    $fatal(1, "st_norm: InBits must be 2 .. 16");
  end
  if (OutBits < 2 || OutBits > 16) begin : gen_bad_out_bits
    $fatal(1, "st_norm: OutBits must be 2 .. 16");
  end

  // ---- widths -------------------------------------------------------------------------------
  localparam int unsigned Tokens = N / Lanes;
  localparam int unsigned PtrWidth = (Tokens > 1) ? $clog2(Tokens) : 1;
  localparam int unsigned Depth = 2 * Tokens;  // bank 0: [0, Tokens), bank 1: [Tokens, 2*Tokens)
  localparam int unsigned AddrWidth = $clog2(Depth);
  localparam int unsigned NBits = $clog2(N + 1);  // N < 2^NBits
  localparam int unsigned BetaBits = (LayerNorm != 0) ? OutBits + 8 : 1;
  localparam int unsigned ParamBits = 16 + LayerNorm * (OutBits + 8);
  localparam int unsigned Sum1Width = InBits + NBits;  // signed, |S1| <= N * 2^(InBits-1)
  localparam int unsigned SquareWidth = 2 * InBits - 1;  // unsigned, x^2 <= 2^(2*InBits-2)
  localparam int unsigned Sum2Width = SquareWidth + NBits;  // unsigned
  localparam int unsigned SpreadWidth = Sum2Width + NBits;  // unsigned, N*S2 - S1^2 <= N*S2
  localparam int unsigned DWidth = ((SpreadWidth > 48) ? SpreadWidth : 48) + 1;
  // u: LayerNorm |N*x - S1| <= N * 2^InBits; RMSNorm u = x.
  localparam int unsigned UWidth = (LayerNorm != 0) ? InBits + NBits + 1 : InBits;
  localparam int unsigned URWidth = UWidth + 19;  // u * R, R unsigned 18 bits
  // |z| <= sqrt(N) * 2^16 (LayerNorm) or 2^16 (RMSNorm), plus the table's rounding error.
  localparam int unsigned ZWidth = (LayerNorm != 0) ? (NBits + 1) / 2 + 19 : 19;
  localparam int unsigned ZGWidth = ZWidth + 16;  // z * gamma
  localparam int unsigned PWidth = ZGWidth + 25;  // z * gamma * M, M unsigned 24 bits
  localparam int unsigned ClampWidth = OutBits + 10;  // Ph clamped: saturates y either way
  localparam int unsigned AWidth = ClampWidth + 1;  // Ph + beta
  // Vector buffer style by size (registers below 9 words, LUTRAM up to 8 Kbit, else BRAM).
  /* verilator lint_off UNUSEDPARAM */
  localparam RamStyle = (Depth <= 8) ? "registers"
                      : (Depth <= 256 && Depth * Lanes * InBits <= 8192) ? "distributed" : "block";
  /* verilator lint_on UNUSEDPARAM */

  // ---- vector buffer ------------------------------------------------------------------------
  (* ram_style = RamStyle *) logic [Lanes*InBits-1:0] buffer_q[Depth];

  // Bank state: full = holds a vector not yet read by pass 2; finalized = its rsqrt is done.
  logic [1:0] full_q, finalized_q;
  // Per-bank scalars: sampled with the first token (epsilon, multiplier) or at finalize.
  logic [47:0] epsilon_q[2];
  logic [23:0] mantissa_q[2];
  logic [5:0] shift_q[2];
  logic signed [Sum1Width-1:0] sum1_bank_q[2];
  logic [17:0] inv_root_q[2];
  logic [5:0] inv_shift_q[2];  // k + 1

  // ---- pass 1: accept, buffer, accumulate ---------------------------------------------------
  logic wr_bank_q;
  logic [PtrWidth-1:0] wr_ptr_q;
  assign ready_o = !full_q[wr_bank_q];
  wire wr_fire = valid_i && ready_o;
  wire wr_first = wr_ptr_q == '0;
  wire wr_last = wr_ptr_q == PtrWidth'(Tokens - 1);
  wire [AddrWidth-1:0] wr_addr = AddrWidth'(wr_ptr_q) + (wr_bank_q ? AddrWidth'(Tokens) : '0);

  always_ff @(posedge clk_i) begin
    if (wr_fire) buffer_q[wr_addr] <= data_i;
    if (wr_fire && wr_first) begin
      epsilon_q[wr_bank_q] <= epsilon_i;
      mantissa_q[wr_bank_q] <= mult_mantissa_i;
      shift_q[wr_bank_q] <= mult_shift_i;
    end
  end

  // Statistics pipeline: p1 token register, p2 per-lane squares, p3 lane sums, then accumulate.
  logic p1_valid_q, p1_first_q, p1_last_q, p1_bank_q;
  logic [Lanes*InBits-1:0] p1_data_q;
  logic p2_valid_q, p2_first_q, p2_last_q, p2_bank_q;
  logic [Lanes*InBits-1:0] p2_data_q;
  logic [Lanes*SquareWidth-1:0] p2_square_q;
  logic p3_valid_q, p3_first_q, p3_last_q, p3_bank_q;
  logic signed [Sum1Width-1:0] p3_sum1_q, acc1_q;
  logic [Sum2Width-1:0] p3_sum2_q, acc2_q;

  for (genvar l = 0; l < Lanes; l++) begin : gen_square
    wire signed [InBits-1:0] x = p1_data_q[l*InBits+:InBits];
    // The top bit of x^2 is always 0 (x^2 <= 2^(2*InBits-2)): only SquareWidth bits are kept.
    /* verilator lint_off UNUSEDSIGNAL */
    wire signed [2*InBits-1:0] x_squared = (2 * InBits)'(x) * (2 * InBits)'(x);
    /* verilator lint_on UNUSEDSIGNAL */
    always_ff @(posedge clk_i) begin
      p2_square_q[l*SquareWidth+:SquareWidth] <= SquareWidth'(x_squared);
    end
  end

  logic signed [Sum1Width-1:0] token_sum1;
  logic [Sum2Width-1:0] token_sum2;
  always_comb begin
    token_sum1 = '0;
    token_sum2 = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      token_sum1 = token_sum1 + Sum1Width'($signed(p2_data_q[l*InBits+:InBits]));
      token_sum2 = token_sum2 + Sum2Width'(p2_square_q[l*SquareWidth+:SquareWidth]);
    end
  end

  wire signed [Sum1Width-1:0] vector_sum1 = (p3_first_q ? '0 : acc1_q) + p3_sum1_q;
  wire [Sum2Width-1:0] vector_sum2 = (p3_first_q ? '0 : acc2_q) + p3_sum2_q;

  // ---- finalize: f0 sums -> f1 products -> f2 D -> st_rsqrt_unit (5 cycles) -----------------
  logic f0_valid_q, f0_bank_q;
  logic signed [Sum1Width-1:0] f0_sum1_q;
  logic [Sum2Width-1:0] f0_sum2_q;
  logic f1_valid_q, f1_bank_q;
  logic [SpreadWidth-1:0] f1_scaled_sum2_q, f1_sum1_squared_q;
  logic [47:0] f1_epsilon_q;
  logic f2_valid_q, f2_bank_q;
  logic [DWidth-1:0] f2_d_q;

  wire [Sum1Width-1:0] f0_abs_sum1 = (f0_sum1_q < 0) ? -f0_sum1_q : f0_sum1_q;
  wire [SpreadWidth-1:0] spread = f1_scaled_sum2_q - f1_sum1_squared_q;
  wire [DWidth-1:0] d_sum = DWidth'(spread) + DWidth'(f1_epsilon_q);

  wire rsqrt_valid, rsqrt_bank;
  wire [17:0] rsqrt_mantissa;
  wire [5:0] rsqrt_exponent;
  st_rsqrt_unit #(
      .InWidth  (DWidth),
      .TagWidth (1),
      .TableFile(TableFile)
  ) i_rsqrt (
      .clk_i,
      .rst_ni,
      .valid_i   (f2_valid_q),
      .x_i       (f2_d_q),
      .tag_i     (f2_bank_q),
      .valid_o   (rsqrt_valid),
      .mantissa_o(rsqrt_mantissa),
      .exponent_o(rsqrt_exponent),
      .tag_o     (rsqrt_bank)
  );

  // ---- pass 2: issue reads with the parameter stream ----------------------------------------
  logic rd_bank_q;
  logic [PtrWidth-1:0] rd_ptr_q;
  wire skid_ready;
  logic s8_valid_q;
  // The whole pass-2 pipeline advances together; it holds when its last stage cannot leave.
  wire advance = !s8_valid_q || skid_ready;
  assign param_ready_o = advance && finalized_q[rd_bank_q];
  wire rd_fire = param_ready_o && param_valid_i;
  wire rd_last = rd_ptr_q == PtrWidth'(Tokens - 1);
  wire [AddrWidth-1:0] rd_addr = AddrWidth'(rd_ptr_q) + (rd_bank_q ? AddrWidth'(Tokens) : '0);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wr_bank_q <= 1'b0;
      wr_ptr_q <= '0;
      rd_bank_q <= 1'b0;
      rd_ptr_q <= '0;
      full_q <= '0;
      finalized_q <= '0;
      p1_valid_q <= 1'b0;
      p2_valid_q <= 1'b0;
      p3_valid_q <= 1'b0;
      f0_valid_q <= 1'b0;
      f1_valid_q <= 1'b0;
      f2_valid_q <= 1'b0;
    end else begin
      if (wr_fire) begin
        wr_ptr_q <= wr_last ? '0 : wr_ptr_q + 1'b1;
        if (wr_last) wr_bank_q <= !wr_bank_q;
      end
      if (rd_fire) begin
        rd_ptr_q <= rd_last ? '0 : rd_ptr_q + 1'b1;
        if (rd_last) rd_bank_q <= !rd_bank_q;
      end
      // A bank is set full by its last write and released by its last read; the two never
      // address the same bank in one cycle (reads need finalized, writes need !full).
      for (int unsigned b = 0; b < 2; b++) begin
        if (wr_fire && wr_last && wr_bank_q == 1'(b)) full_q[b] <= 1'b1;
        if (rd_fire && rd_last && rd_bank_q == 1'(b)) begin
          full_q[b] <= 1'b0;
          finalized_q[b] <= 1'b0;
        end
        if (rsqrt_valid && rsqrt_bank == 1'(b)) finalized_q[b] <= 1'b1;
      end
      p1_valid_q <= wr_fire;
      p2_valid_q <= p1_valid_q;
      p3_valid_q <= p2_valid_q;
      f0_valid_q <= p3_valid_q && p3_last_q;
      f1_valid_q <= f0_valid_q;
      f2_valid_q <= f1_valid_q;
    end
  end

  // Pass-1 and finalize payload registers (not reset).
  always_ff @(posedge clk_i) begin
    p1_data_q <= data_i;
    p1_first_q <= wr_first;
    p1_last_q <= wr_last;
    p1_bank_q <= wr_bank_q;
    p2_data_q <= p1_data_q;
    p2_first_q <= p1_first_q;
    p2_last_q <= p1_last_q;
    p2_bank_q <= p1_bank_q;
    p3_sum1_q <= token_sum1;
    p3_sum2_q <= token_sum2;
    p3_first_q <= p2_first_q;
    p3_last_q <= p2_last_q;
    p3_bank_q <= p2_bank_q;
    if (p3_valid_q) begin
      acc1_q <= vector_sum1;
      acc2_q <= vector_sum2;
    end
    if (p3_valid_q && p3_last_q) sum1_bank_q[p3_bank_q] <= vector_sum1;
    f0_sum1_q <= vector_sum1;
    f0_sum2_q <= vector_sum2;
    f0_bank_q <= p3_bank_q;
    if (LayerNorm != 0) begin
      f1_scaled_sum2_q <= SpreadWidth'(N) * SpreadWidth'(f0_sum2_q);
      f1_sum1_squared_q <= SpreadWidth'(f0_abs_sum1) * SpreadWidth'(f0_abs_sum1);
    end else begin
      f1_scaled_sum2_q <= SpreadWidth'(f0_sum2_q);
      f1_sum1_squared_q <= '0;
    end
    f1_epsilon_q <= epsilon_q[f0_bank_q];
    f1_bank_q <= f0_bank_q;
    f2_d_q <= (d_sum == '0) ? DWidth'(1) : d_sum;  // max(D, 1); D >= 0
    f2_bank_q <= f1_bank_q;
    if (rsqrt_valid) begin
      inv_root_q[rsqrt_bank] <= rsqrt_mantissa;
      inv_shift_q[rsqrt_bank] <= rsqrt_exponent + 6'd1;
    end
  end

  // ---- pass 2 datapath: s1 read ... s8 result ------------------------------------------------
  // Per-vector constants travel with each token, so a bank can be refilled while its last
  // tokens are still in the pipeline.
  logic s1_valid_q, s2_valid_q, s3_valid_q, s4_valid_q, s5_valid_q, s6_valid_q, s7_valid_q;
  logic [Lanes*InBits-1:0] s1_data_q;
  logic [Lanes*ParamBits-1:0] s1_param_q, s2_param_q, s3_param_q, s4_param_q;
  // Each lane's record from the low bits of its slot.
  logic [Lanes*ParamBits-1:0] param_records;
  for (genvar l = 0; l < Lanes; l++) begin : gen_param_record
    assign param_records[l*ParamBits+:ParamBits] = param_data_i[l*ParamSlotBits+:ParamBits];
  end
  // s1_sum1_q and the beta registers are unused (and trimmed) in RMSNorm mode.
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [Sum1Width-1:0] s1_sum1_q;
  logic [17:0] s1_root_q, s2_root_q;
  logic [5:0] s1_k1_q, s2_k1_q, s3_k1_q;
  logic [23:0] s1_mant_q, s2_mant_q, s3_mant_q, s4_mant_q, s5_mant_q;
  logic [5:0] s1_shift_q, s2_shift_q, s3_shift_q, s4_shift_q, s5_shift_q, s6_shift_q;
  logic [Lanes*BetaBits-1:0] s5_beta_q, s6_beta_q, s7_beta_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [Lanes*OutBits-1:0] s8_data_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      s4_valid_q <= 1'b0;
      s5_valid_q <= 1'b0;
      s6_valid_q <= 1'b0;
      s7_valid_q <= 1'b0;
      s8_valid_q <= 1'b0;
    end else if (advance) begin
      s1_valid_q <= rd_fire;
      s2_valid_q <= s1_valid_q;
      s3_valid_q <= s2_valid_q;
      s4_valid_q <= s3_valid_q;
      s5_valid_q <= s4_valid_q;
      s6_valid_q <= s5_valid_q;
      s7_valid_q <= s6_valid_q;
      s8_valid_q <= s7_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (advance) begin
      s1_data_q <= buffer_q[rd_addr];
      s1_param_q <= param_records;
      s1_sum1_q <= sum1_bank_q[rd_bank_q];
      s1_root_q <= inv_root_q[rd_bank_q];
      s1_k1_q <= inv_shift_q[rd_bank_q];
      s1_mant_q <= mantissa_q[rd_bank_q];
      s1_shift_q <= shift_q[rd_bank_q];
      s2_param_q <= s1_param_q;
      s2_root_q <= s1_root_q;
      s2_k1_q <= s1_k1_q;
      s2_mant_q <= s1_mant_q;
      s2_shift_q <= s1_shift_q;
      s3_param_q <= s2_param_q;
      s3_k1_q <= s2_k1_q;
      s3_mant_q <= s2_mant_q;
      s3_shift_q <= s2_shift_q;
      s4_param_q <= s3_param_q;
      s4_mant_q <= s3_mant_q;
      s4_shift_q <= s3_shift_q;
      s5_mant_q <= s4_mant_q;
      s5_shift_q <= s4_shift_q;
      s6_shift_q <= s5_shift_q;
      s6_beta_q <= s5_beta_q;
      s7_beta_q <= s6_beta_q;
    end
  end

  for (genvar l = 0; l < Lanes; l++) begin : gen_lane
    logic signed [UWidth-1:0] s2_u_q;
    logic signed [URWidth-1:0] s3_ur_q;
    logic signed [ZWidth-1:0] s4_z_q;
    logic signed [ZGWidth-1:0] s5_zg_q;
    logic signed [PWidth-1:0] s6_p_q;
    logic signed [ClampWidth-1:0] s7_high_q;
    logic s7_sticky_q;

    // s2: u = N*x - S1 (LayerNorm) or x (RMSNorm).
    wire signed [InBits-1:0] x = s1_data_q[l*InBits+:InBits];
    wire signed [UWidth-1:0] u;
    if (LayerNorm != 0) begin : gen_center
      assign u = UWidth'(x) * $signed(UWidth'(N)) - UWidth'(s1_sum1_q);
    end else begin : gen_plain
      assign u = x;
    end

    // s3: u * R.
    wire signed [URWidth-1:0] ur = URWidth'(s2_u_q) * $signed(URWidth'(s2_root_q));

    // s4: z = round(u * R / 2^(k+1)), half away from zero.
    wire signed [URWidth:0] ur_biased =
        (URWidth + 1)'(s3_ur_q) + $signed((URWidth + 1)'(1) << (s3_k1_q - 6'd1))
        - $signed((URWidth + 1)'(s3_ur_q < 0));
    wire signed [URWidth:0] z_full = ur_biased >>> s3_k1_q;

    // s5: z * gamma.
    wire signed [15:0] gamma = s4_param_q[l*ParamBits+:16];
    wire signed [ZGWidth-1:0] zg = ZGWidth'(s4_z_q) * ZGWidth'(gamma);

    // s6: z * gamma * M.
    wire signed [PWidth-1:0] p = PWidth'(s5_zg_q) * $signed(PWidth'(s5_mant_q));

    // s7: Ph = floor(P / 2^(shift+8)) clamped, and whether any dropped bit is set.
    wire [6:0] drop = {1'b0, s6_shift_q} + 7'd8;
    wire signed [PWidth-1:0] high_full = s6_p_q >>> drop;
    wire [PWidth-1:0] dropped_mask = ~({PWidth{1'b1}} << drop);
    wire sticky = |(s6_p_q & dropped_mask);
    localparam logic signed [PWidth-1:0] HighMax = PWidth'(2 ** (ClampWidth - 1) - 1);
    localparam logic signed [PWidth-1:0] HighMin = -PWidth'(2 ** (ClampWidth - 1));
    wire signed [ClampWidth-1:0] high_clamped =
        (high_full > HighMax) ? ClampWidth'(HighMax)
      : (high_full < HighMin) ? ClampWidth'(HighMin) : ClampWidth'(high_full);

    // s8: A = Ph + beta; y = sat((A + 128 - (A < 0 && !sticky)) >>> 8).
    wire signed [AWidth-1:0] beta_ext;
    if (LayerNorm != 0) begin : gen_beta
      assign beta_ext = AWidth'($signed(s7_beta_q[l*BetaBits+:BetaBits]));
      always_ff @(posedge clk_i) begin
        if (advance) s5_beta_q[l*BetaBits+:BetaBits] <= s4_param_q[l*ParamBits+16+:BetaBits];
      end
    end else begin : gen_no_beta
      assign beta_ext = '0;
      always_ff @(posedge clk_i) begin
        if (advance) s5_beta_q[l*BetaBits+:BetaBits] <= '0;
      end
    end
    wire signed [AWidth-1:0] a = AWidth'(s7_high_q) + beta_ext;
    wire signed [AWidth-1:0] rounded =
        (a + $signed(AWidth'(128)) - $signed(AWidth'(a < 0 && !s7_sticky_q))) >>> 8;
    localparam logic signed [AWidth-1:0] OutMax = AWidth'(2 ** (OutBits - 1) - 1);
    localparam logic signed [AWidth-1:0] OutMin = -AWidth'(2 ** (OutBits - 1));
    wire signed [OutBits-1:0] y =
        (rounded > OutMax) ? OutBits'(OutMax) : (rounded < OutMin) ? OutBits'(OutMin)
                                                                   : OutBits'(rounded);

    always_ff @(posedge clk_i) begin
      if (advance) begin
        s2_u_q <= u;
        s3_ur_q <= ur;
        s4_z_q <= ZWidth'(z_full);
        s5_zg_q <= zg;
        s6_p_q <= p;
        s7_high_q <= high_clamped;
        s7_sticky_q <= sticky;
        s8_data_q[l*OutBits+:OutBits] <= y;
      end
    end

`ifndef SYNTHESIS
    // z fits its register: the bound |z| <= sqrt(N) * 2^16 (1 + table error) holds.
    always_ff @(posedge clk_i) begin
      if (rst_ni && advance && s3_valid_q) assert (z_full == (URWidth + 1)'(ZWidth'(z_full)));
    end
`endif
  end

  // ---- output register slice ----------------------------------------------------------------
  st_skid_buffer #(
      .Width(Lanes * OutBits)
  ) i_out_slice (
      .clk_i,
      .rst_ni,
      .valid_i(s8_valid_q),
      .ready_o(skid_ready),
      .data_i (s8_data_q),
      .valid_o,
      .ready_i,
      .data_o
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // Pass 2 only reads a bank that pass 1 filled.
      if (rd_fire) assert (full_q[rd_bank_q]);
      // A bank is finalized at most once per fill.
      if (rsqrt_valid) assert (full_q[rsqrt_bank] && !finalized_q[rsqrt_bank]);
    end
  end
`endif

endmodule

`default_nettype wire
