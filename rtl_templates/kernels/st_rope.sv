// st_rope: rotary position embedding, rotate-half convention (Llama, Qwen2, Gemma), over the
// q or k vector of one token, bit-exact with st::numerics::rope (docs/numerics.md §6).
//
// Stream (element i of a token at bits [i*Bits +: Bits]):
//   data_i  one vector = NumHeads heads of HeadDim s<InBits> codes, head-major (head 0 first),
//           Lanes codes per token, HeadDim/Lanes tokens per head (Lanes divides HeadDim/2).
//   data_o  the rotated vector in the same order, s<OutBits> codes, saturated.
// Per-vector sideband, sampled in the cycle the first token of a vector (head 0, token 0) is
// accepted on data_i:
//   pos_i            the token's position p (unsigned, PosBits)
//   table_sel_i      which of the NumTables phase tables (RoPE variants, e.g. Gemma 3's local
//                    and global bases) the vector uses; < NumTables
//   mult_mantissa_i  output multiplier s_in/s_out: mantissa (24 bits), mult_shift_i shift (0..63)
//
// Arithmetic, for pair j < HeadDim/2 of every head, a = x[j], b = x[j + HeadDim/2]:
//   phase_j = p * inc[table][j] mod 2^48 (turns, Q0.48); (s, c) = sinCos(phase_j) (Q1.15, the
//   quarter-wave table of st::numerics::sinCosFixed through st_pwl_table)
//   y[j]             = sat(round((a*c - b*s) * M / 2^(shift+15)))
//   y[j + HeadDim/2] = sat(round((b*c + a*s) * M / 2^(shift+15)))     (half away from zero)
//
// Tables: PhaseTableFile holds NumTables * HeadDim/2 phase increments inc (Q0.48, one 48-bit
// hexadecimal entry per line, table 0 first, pair j = 0 first), written by the compiler
// (st::numerics::writeRopePhaseFile); SineTableFile is the fixed quarter-wave table
// <build>/tables/quarter_sine.mem (target st_tables).
//
// Structure: a head is written into one bank of a two-bank buffer; once complete, it is read
// back one token per cycle together with its partner token (HeadDim/2 elements away) while the
// next head fills the other bank. Per lane, a 9-stage pipeline: s1 buffer and phase-table read,
// s2 p * inc, s3..s4 st_pwl_table (quarter sine at w and 1 - w), s5 quadrant -> (s, c),
// s6 products a*c and b*s, s7 sum, s8 * M, s9 rounding shift and saturation; then
// st_skid_buffer. The pipeline advances as one (it stalls only when the output slice is full).
// Timing (ideal streams, T = HeadDim/Lanes, cycle 0 = first input handshake of a vector): head
// h is read at cycles (h+1)*T .. (h+2)*T - 1, output token k at T + 10 + k; one token per cycle
// in and out, back to back across vectors (compiler/model/rope_model.h).
`default_nettype none

module st_rope #(
    /// Heads per vector (>= 1).
    parameter int unsigned NumHeads = 2,
    /// Head dimension d (even); Lanes divides d/2.
    parameter int unsigned HeadDim = 16,
    /// Codes per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Input code width (2 .. 16), signed.
    parameter int unsigned InBits = 8,
    /// Output code width (2 .. 16), signed, saturated.
    parameter int unsigned OutBits = 8,
    /// Width of the position input (1 .. 32).
    parameter int unsigned PosBits = 16,
    /// Number of phase tables (RoPE variants) in PhaseTableFile (>= 1).
    parameter int unsigned NumTables = 2,
    /// $readmemh file of the phase increments (see above). Mandatory.
    parameter PhaseTableFile = "",
    /// $readmemh file of the quarter-wave sine table: <build>/tables/quarter_sine.mem. Mandatory.
    parameter SineTableFile = ""
) (
    input  wire                                             clk_i,
    input  wire                                             rst_ni,           // synchronous, active low
    // input vector
    input  wire                                             valid_i,
    output logic                                            ready_o,
    input  wire  [                        Lanes*InBits-1:0] data_i,
    // per-vector sideband, sampled with the first token of a vector
    input  wire  [                             PosBits-1:0] pos_i,
    input  wire  [((NumTables > 1) ? $clog2(NumTables) : 1)-1:0] table_sel_i,
    input  wire  [                                    23:0] mult_mantissa_i,
    input  wire  [                                     5:0] mult_shift_i,
    // rotated vector
    output logic                                            valid_o,
    input  wire                                             ready_i,
    output logic [                       Lanes*OutBits-1:0] data_o
);

  if (NumHeads < 1) begin : gen_bad_heads
    $fatal(1, "st_rope: NumHeads must be >= 1");
  end
  if (HeadDim < 2 || HeadDim % 2 != 0 || Lanes < 1 || (HeadDim / 2) % Lanes != 0) begin : gen_bad_dim
    $fatal(1, "st_rope: HeadDim must be even and HeadDim/2 a multiple of Lanes >= 1");
  end
  if (InBits < 2 || InBits > 16 || OutBits < 2 || OutBits > 16) begin : gen_bad_bits
    $fatal(1, "st_rope: InBits and OutBits must be 2 .. 16");
  end
  if (PosBits < 1 || PosBits > 32) begin : gen_bad_pos_bits
    $fatal(1, "st_rope: PosBits must be 1 .. 32");
  end
  if (NumTables < 1) begin : gen_bad_tables
    $fatal(1, "st_rope: NumTables must be >= 1");
  end

  // ---- sizes --------------------------------------------------------------------------------
  localparam int unsigned Half = HeadDim / 2;
  localparam int unsigned Tokens = HeadDim / Lanes;  // >= 2
  localparam int unsigned HalfTokens = Tokens / 2;
  localparam int unsigned TokWidth = $clog2(Tokens);
  localparam int unsigned HeadWidth = (NumHeads > 1) ? $clog2(NumHeads) : 1;
  localparam int unsigned SelWidth = (NumTables > 1) ? $clog2(NumTables) : 1;
  localparam int unsigned AddrWidth = $clog2(2 * Tokens);
  localparam int unsigned PhaseEntries = NumTables * Half;
  localparam int unsigned PhaseAddrWidth = (PhaseEntries > 1) ? $clog2(PhaseEntries) : 1;
  localparam int unsigned PhaseBits = 48;
  localparam int unsigned TrigBits = 17;  // signed Q1.15, -1.0 .. 1.0
  localparam int unsigned ProductBits = InBits + TrigBits;
  localparam int unsigned SumBits = ProductBits + 1;
  localparam int unsigned ScaledBits = SumBits + 25;  // * unsigned 24-bit mantissa
  localparam int unsigned TrigFracBits = 15;
  localparam int unsigned SineEntries = 257;
  localparam int unsigned SineEntryBits = 18;  // u18 Q1.17
  localparam int unsigned SineFracBits = 22;  // offset w Q0.30: 8 index bits above 22 fraction bits
  localparam int unsigned SineOffsetBits = $clog2(SineEntries) + SineFracBits;  // 31

  // ---- write side: heads into the two banks -------------------------------------------------
  logic [Lanes*InBits-1:0] buffer_q[2*Tokens];
  logic [1:0] full_q;  // bank b holds a complete head not yet read
  logic wr_bank_q;
  logic [TokWidth-1:0] wr_tok_q;
  logic [HeadWidth-1:0] wr_head_q;
  // The current vector's sideband, and per bank the sideband of the head it holds.
  logic [PosBits-1:0] vec_pos_q, bank_pos_q[2];
  logic [SelWidth-1:0] vec_sel_q, bank_sel_q[2];
  logic [23:0] vec_mant_q, bank_mant_q[2];
  logic [5:0] vec_shift_q, bank_shift_q[2];

  assign ready_o = rst_ni && !full_q[wr_bank_q];
  wire in_fire = valid_i && ready_o;
  wire first_of_vector = (wr_head_q == '0) && (wr_tok_q == '0);
  wire wr_last = wr_tok_q == TokWidth'(Tokens - 1);
  wire [PosBits-1:0] pos_now = first_of_vector ? pos_i : vec_pos_q;
  wire [SelWidth-1:0] sel_now = first_of_vector ? table_sel_i : vec_sel_q;
  wire [23:0] mant_now = first_of_vector ? mult_mantissa_i : vec_mant_q;
  wire [5:0] shift_now = first_of_vector ? mult_shift_i : vec_shift_q;
  wire [AddrWidth-1:0] wr_addr = wr_bank_q ? AddrWidth'(Tokens) + AddrWidth'(wr_tok_q)
                                           : AddrWidth'(wr_tok_q);

  always_ff @(posedge clk_i) begin
    if (in_fire) buffer_q[wr_addr] <= data_i;
  end

  // ---- read side: one token and its partner per cycle -----------------------------------------
  logic out_ready;  // the output slice can take a token: the whole pipeline advances
  wire adv = out_ready;
  logic rd_bank_q;
  logic [TokWidth-1:0] rd_tok_q;
  wire issue = adv && full_q[rd_bank_q];
  wire rd_last = rd_tok_q == TokWidth'(Tokens - 1);
  wire rd_second = rd_tok_q >= TokWidth'(HalfTokens);  // the token holds elements j + d/2
  wire [TokWidth-1:0] rd_pair = rd_second ? rd_tok_q - TokWidth'(HalfTokens) : rd_tok_q;
  wire [TokWidth-1:0] partner_tok = rd_second ? rd_pair : rd_tok_q + TokWidth'(HalfTokens);
  wire [AddrWidth-1:0] rd_base = rd_bank_q ? AddrWidth'(Tokens) : '0;
  wire [AddrWidth-1:0] own_addr = rd_base + AddrWidth'(rd_tok_q);
  wire [AddrWidth-1:0] partner_addr = rd_base + AddrWidth'(partner_tok);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      full_q <= '0;
      wr_bank_q <= 1'b0;
      wr_tok_q <= '0;
      wr_head_q <= '0;
      rd_bank_q <= 1'b0;
      rd_tok_q <= '0;
      vec_pos_q <= '0;
      vec_sel_q <= '0;
      vec_mant_q <= '0;
      vec_shift_q <= '0;
      for (int b = 0; b < 2; b++) begin
        bank_pos_q[b] <= '0;
        bank_sel_q[b] <= '0;
        bank_mant_q[b] <= '0;
        bank_shift_q[b] <= '0;
      end
    end else begin
      if (in_fire) begin
        if (first_of_vector) begin
          vec_pos_q <= pos_i;
          vec_sel_q <= table_sel_i;
          vec_mant_q <= mult_mantissa_i;
          vec_shift_q <= mult_shift_i;
        end
        if (wr_tok_q == '0) begin
          bank_pos_q[wr_bank_q] <= pos_now;
          bank_sel_q[wr_bank_q] <= sel_now;
          bank_mant_q[wr_bank_q] <= mant_now;
          bank_shift_q[wr_bank_q] <= shift_now;
        end
        wr_tok_q <= wr_last ? '0 : wr_tok_q + 1'b1;
        if (wr_last) begin
          wr_bank_q <= !wr_bank_q;
          wr_head_q <= (wr_head_q == HeadWidth'(NumHeads - 1)) ? '0 : wr_head_q + 1'b1;
        end
      end
      if (issue) begin
        rd_tok_q <= rd_last ? '0 : rd_tok_q + 1'b1;
        if (rd_last) rd_bank_q <= !rd_bank_q;
      end
      // The write side fills one bank while the read side drains the other.
      for (int b = 0; b < 2; b++) begin
        if (in_fire && wr_last && wr_bank_q == b[0]) full_q[b] <= 1'b1;
        else if (issue && rd_last && rd_bank_q == b[0]) full_q[b] <= 1'b0;
      end
    end
  end

  // ---- phase-increment table ------------------------------------------------------------------
  logic [PhaseBits-1:0] phase_rom[PhaseEntries];
  initial if (PhaseTableFile != "") $readmemh(PhaseTableFile, phase_rom);

  // ---- s1: buffer and table reads, sideband of the head -----------------------------------------
  logic v1_q, second1_q;
  logic [Lanes*InBits-1:0] own1_q, partner1_q;
  logic [PosBits-1:0] pos1_q;
  logic [23:0] mant1_q;
  logic [5:0] shift1_q;
  logic [Lanes*PhaseBits-1:0] inc1_q;
  wire [PhaseAddrWidth-1:0] phase_base =
      PhaseAddrWidth'(bank_sel_q[rd_bank_q]) * PhaseAddrWidth'(Half) +
      PhaseAddrWidth'(rd_pair) * PhaseAddrWidth'(Lanes);
  always_ff @(posedge clk_i) begin
    if (adv) begin
      own1_q <= buffer_q[own_addr];
      partner1_q <= buffer_q[partner_addr];
      second1_q <= rd_second;
      pos1_q <= bank_pos_q[rd_bank_q];
      mant1_q <= bank_mant_q[rd_bank_q];
      shift1_q <= bank_shift_q[rd_bank_q];
      for (int i = 0; i < Lanes; i++)
        inc1_q[i*PhaseBits+:PhaseBits] <= phase_rom[phase_base+PhaseAddrWidth'(i)];
    end
  end

  // Control and sideband delay lines of s2..s9 (valid, half flag, multiplier).
  logic [9:2] valid_q;
  logic [6:2] second_q;
  logic [23:0] mant_q[2:7];
  logic [5:0] shift_q[2:8];
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
      valid_q <= '0;
    end else if (adv) begin
      v1_q <= issue;
      valid_q <= {valid_q[8:2], v1_q};
    end
  end
  always_ff @(posedge clk_i) begin
    if (adv) begin
      second_q <= {second_q[5:2], second1_q};
      mant_q[2] <= mant1_q;
      shift_q[2] <= shift1_q;
      for (int s = 3; s <= 7; s++) mant_q[s] <= mant_q[s-1];
      for (int s = 3; s <= 8; s++) shift_q[s] <= shift_q[s-1];
    end
  end

  // ---- per lane: s2..s9 -------------------------------------------------------------------------
  logic [Lanes*OutBits-1:0] y_d;
  for (genvar i = 0; i < Lanes; i++) begin : gen_lane
    // s2: phase = p * inc mod 2^48
    logic [PhaseBits-1:0] phase2_q;
    always_ff @(posedge clk_i) begin
      if (adv) phase2_q <= PhaseBits'(pos1_q * inc1_q[i*PhaseBits+:PhaseBits]);
    end

    // s3, s4: quarter-wave lookups at w and 1 - w. The phase rounded to Q0.32 (a carry out of
    // the top wraps to 0): quadrant = top 2 bits, w = the 30 bits below.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [PhaseBits:0] phase_rounded = {1'b0, phase2_q} + (PhaseBits + 1)'(1 << 15);
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] phase32 = phase_rounded[47:16];
    wire [29:0] quarter_pos = phase32[29:0];
    wire [SineOffsetBits-1:0] rise_offset = SineOffsetBits'(quarter_pos);
    wire [SineOffsetBits-1:0] fall_offset = SineOffsetBits'(31'(1 << 30) - 31'(quarter_pos));
    logic [1:0] quadrant3_q, quadrant4_q;
    logic [SineEntryBits-1:0] rise4, fall4;
    always_ff @(posedge clk_i) begin
      if (adv) begin
        quadrant3_q <= phase32[31:30];
        quadrant4_q <= quadrant3_q;
      end
    end
    st_pwl_table #(
        .Entries(SineEntries),
        .EntryBits(SineEntryBits),
        .FracBits(SineFracBits),
        .TableFile(SineTableFile)
    ) u_rise (
        .clk_i,
        .enable_i(adv),
        .offset_i(rise_offset),
        .value_o (rise4)
    );
    st_pwl_table #(
        .Entries(SineEntries),
        .EntryBits(SineEntryBits),
        .FracBits(SineFracBits),
        .TableFile(SineTableFile)
    ) u_fall (
        .clk_i,
        .enable_i(adv),
        .offset_i(fall_offset),
        .value_o (fall4)
    );

    // s5: Q1.17 -> Q1.15 (round half up: the values are >= 0, at most 2^15 after rounding),
    // then the quadrant's signs.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [SineEntryBits:0] rise_rounded = {1'b0, rise4} + (SineEntryBits + 1)'(2);
    wire [SineEntryBits:0] fall_rounded = {1'b0, fall4} + (SineEntryBits + 1)'(2);
    /* verilator lint_on UNUSEDSIGNAL */
    wire signed [TrigBits-1:0] rise = $signed({1'b0, rise_rounded[SineEntryBits-1:2]});
    wire signed [TrigBits-1:0] fall = $signed({1'b0, fall_rounded[SineEntryBits-1:2]});
    logic signed [TrigBits-1:0] sin5_q, cos5_q;
    always_ff @(posedge clk_i) begin
      if (adv) begin
        unique case (quadrant4_q)
          2'd0: begin
            sin5_q <= rise;
            cos5_q <= fall;
          end
          2'd1: begin
            sin5_q <= fall;
            cos5_q <= -rise;
          end
          2'd2: begin
            sin5_q <= -rise;
            cos5_q <= -fall;
          end
          default: begin
            sin5_q <= -fall;
            cos5_q <= rise;
          end
        endcase
      end
    end

    // The codes of this lane, delayed to meet (s, c) at s6.
    logic signed [InBits-1:0] own_q[2:5], partner_q[2:5];
    always_ff @(posedge clk_i) begin
      if (adv) begin
        own_q[2] <= $signed(own1_q[i*InBits+:InBits]);
        partner_q[2] <= $signed(partner1_q[i*InBits+:InBits]);
        for (int s = 3; s <= 5; s++) begin
          own_q[s] <= own_q[s-1];
          partner_q[s] <= partner_q[s-1];
        end
      end
    end

    // s6, s7: first half y = a*c - b*s (own = a, partner = b); second half y = b*c + a*s
    // (own = b, partner = a).
    logic signed [ProductBits-1:0] own_cos6_q, partner_sin6_q;
    logic signed [SumBits-1:0] sum7_q;
    always_ff @(posedge clk_i) begin
      if (adv) begin
        own_cos6_q <= ProductBits'(own_q[5]) * ProductBits'(cos5_q);
        partner_sin6_q <= ProductBits'(partner_q[5]) * ProductBits'(sin5_q);
        sum7_q <= second_q[6] ? SumBits'(own_cos6_q) + SumBits'(partner_sin6_q)
                              : SumBits'(own_cos6_q) - SumBits'(partner_sin6_q);
      end
    end

    // s8: * M;  s9: round half away from zero by shift + 15, saturate. A total shift above 63
    // gives 0 (|scaled| < 2^(ScaledBits-1) <= 2^58).
    logic signed [ScaledBits-1:0] scaled8_q;
    logic [OutBits-1:0] y9_q;
    wire [6:0] total_shift = 7'(shift_q[8]) + 7'(TrigFracBits);
    wire [OutBits-1:0] rounded;
    st_round_shift #(
        .InWidth(ScaledBits),
        .OutWidth(OutBits),
        .SymmetricRounding(1)
    ) u_round (
        .clk_i   (clk_i),
        .enable_i(1'b0),
        .value_i(scaled8_q),
        .shift_i(total_shift[5:0]),
        .value_o(rounded)
    );
    always_ff @(posedge clk_i) begin
      if (adv) begin
        scaled8_q <= ScaledBits'(sum7_q) * ScaledBits'($signed({1'b0, mant_q[7]}));
        y9_q <= total_shift[6] ? '0 : rounded;
      end
    end
    assign y_d[i*OutBits+:OutBits] = y9_q;
  end

  // ---- output register slice --------------------------------------------------------------------
  st_skid_buffer #(
      .Width(Lanes * OutBits)
  ) u_out_slice (
      .clk_i,
      .rst_ni,
      .valid_i(valid_q[9]),
      .ready_o(out_ready),
      .data_i (y_d),
      .valid_o,
      .ready_i,
      .data_o
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && in_fire && first_of_vector) assert (32'(table_sel_i) < NumTables);
  end
`endif

endmodule

`default_nettype wire
