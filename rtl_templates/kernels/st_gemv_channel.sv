// st_gemv_channel: the datapath of one weight channel of st_gemv_engine (docs/gemv-engine.md),
// or of two (Ways = 2): the row records and mantissas of the channel's stream, KLanes
// multipliers, per-segment exact sums times the segment's group mantissa, and the row
// accumulator. The engine instantiates it once per channel (per pair of channels) and drives
// every control input of all alike (one FSM), so the channels run in lockstep; synthesis with
// kept hierarchy maps it once.
//
// Ways = 2 packs the two channels' products of a lane into one multiply (docs/sources.md §5, DSP48E2
// packing): both channels multiply the same x entry, so lane l computes
//   x[l] * (wa[l] + wb[l] * 2^Shift)  =  x[l]*wa[l] + x[l]*wb[l] * 2^Shift
// (one DSP48E2: a WBits+Shift+1-bit signed operand on the 27-bit port, x on the 18-bit one), the
// segment adds the packed products, and the two exact segment sums come apart as
//   sa = the low Shift bits, sign-extended;  sb = (packed - sa) >> Shift
// which is exact because |sa| <= 2^(SegBits-2) < 2^(Shift-1) (Shift = SegBits). Same bits as
// Ways = 1.
//
// Pipeline (stages advance on adv_i; the engine tracks which stage holds a valid word):
//   R1  w_take_i: the weight word(s), and per segment and way its mantissa chunk[mant_idx] (or 1
//       when not grouped); the engine registers the word's x entry beside it (x_i)
//   R2  KLanes products W * x (signed WBits x ABits; packed pairs for Ways = 2)
//   R3  per segment (and way) the exact sum of its SegLanes products
//   R4  per segment and way the sum times its u16 mantissa (exact)
//   R5  acc_en_i: accumulator = (acc_first_i ? 0 : accumulator) + the word's segment sum
// Records: a P word's six 80-bit records are kept in one of three slots (p_slot_i) until the
// engine reads the record of a finished row (rec_slot_i, rec_idx_i: combinational rec_o).
`default_nettype none

module st_gemv_channel #(
    /// Codes per weight word (a power of two, KLanes * WBits <= 512).
    parameter int unsigned KLanes = 16,
    /// Codes per segment (a power of two dividing KLanes; KLanes / SegLanes <= 32).
    parameter int unsigned SegLanes = 16,
    /// Weight code bits: 4 or 8.
    parameter int unsigned WBits = 4,
    /// Activation code bits: 8 or 16.
    parameter int unsigned ABits = 8,
    /// Accumulator width: exact for the engine's largest K (st_gemv_engine computes it).
    parameter int unsigned SumBits = 40,
    /// Channels of this instance: 1, or 2 with their products packed in pairs (WBits + SegBits +
    /// 1 <= 27 and ABits <= 18: one DSP48E2 per pair). Way w's word, accumulator and record at
    /// [w*512 +: 512], [w*SumBits +: SumBits], [w*78 +: 78].
    parameter int unsigned Ways = 1
) (
    input  wire                           clk_i,
    input  wire                           adv_i,       // the pipeline advances
    input  wire  [            Ways*512-1:0] word_i,      // each way's stream word
    input  wire                           p_take_i,    // word_i is a P word (row records)
    input  wire  [                   1:0] p_slot_i,    // ... kept in this slot (0..2)
    input  wire                           s_take_i,    // word_i is an S word (32 mantissas)
    input  wire                           w_take_i,    // word_i is a W word (into R1)
    input  wire                           grouped_i,   // 0: every mantissa is 1
    input  wire  [(KLanes/SegLanes)*5-1:0] mant_idx_i,  // per segment: mantissa of the S word
    input  wire  [      KLanes*ABits-1:0] x_i,         // R1: the x entry of the word
    input  wire                           acc_en_i,    // R4 holds a valid word (adv_i is set)
    input  wire                           acc_first_i, // ... the first word of its row
    input  wire  [                   1:0] rec_slot_i,  // record read: slot
    input  wire  [                   2:0] rec_idx_i,   // record read: record in the P word
    output logic [      Ways*SumBits-1:0] acc_o,       // R5 accumulators
    output logic [             Ways*78-1:0] rec_o        // bias s48, mantissa u24, shift u6
);

  localparam int unsigned NSeg = KLanes / SegLanes;
  localparam int unsigned ProdBits = WBits + ABits;
  localparam int unsigned SegBits = ProdBits + $clog2(SegLanes);
  localparam int unsigned MantBits = 16;
  localparam int unsigned ScaledBits = SegBits + MantBits;
  localparam int unsigned WordSumBits = ScaledBits + $clog2(NSeg);
  localparam int unsigned RecBits = 78;  // of each 80-bit record; bits 78, 79 are zero
  localparam int unsigned Records = 6;

  if (KLanes < 2 || (KLanes & (KLanes - 1)) != 0 || KLanes * WBits > 512) begin : gen_bad_klanes
    $fatal(1, "st_gemv_channel: KLanes must be a power of two >= 2 with KLanes * WBits <= 512");
  end
  if (SegLanes < 1 || KLanes % SegLanes != 0 || (SegLanes & (SegLanes - 1)) != 0 || NSeg > 32)
  begin : gen_bad_seg
    $fatal(1, "st_gemv_channel: SegLanes must be a power of two dividing KLanes, <= 32 segments");
  end
  if (SumBits < WordSumBits) begin : gen_bad_sum
    $fatal(1, "st_gemv_channel: SumBits is narrower than one word's sum");
  end

  // Ways = 2: the packed weight operand (wb * 2^Shift + wa), its product and the packed segment
  // sum; |sa| <= 2^(SegBits-2) < 2^(Shift-1), so the low Shift bits hold sa exactly.
  localparam int unsigned Shift = SegBits;
  localparam int unsigned PackedBits = WBits + Shift + 1;  // wb * 2^Shift + wa, wa < 0 included
  localparam int unsigned PackedProdBits = PackedBits + ABits;
  localparam int unsigned PackedSegBits = PackedProdBits + $clog2(SegLanes);
  if (Ways != 1 && (Ways != 2 || PackedBits > 27 || ABits > 18)) begin : gen_bad_ways
    $fatal(1, "st_gemv_channel: Ways must be 1, or 2 with WBits + SegBits + 1 <= 27, ABits <= 18");
  end

  // ---- per way: records (three slots of six), the mantissa chunk, R1 weight word, per segment
  // its mantissa pipeline ------------------------------------------------------------------------
  logic [Ways*KLanes*WBits-1:0] w1_all;  // R1 weight words
  logic [Ways*NSeg*MantBits-1:0] m3_all;  // R4 mantissas, [(w*NSeg + s)*MantBits +: MantBits]
  for (genvar w = 0; w < Ways; w++) begin : gen_way
    wire [511:0] word = word_i[w*512+:512];
    logic [Records*RecBits-1:0] slot_q[3];
    logic [Records*RecBits-1:0] p_records;
    for (genvar i = 0; i < Records; i++) begin : gen_rec_field
      assign p_records[i*RecBits+:RecBits] = word[i*80+:RecBits];
    end
    for (genvar s = 0; s < 3; s++) begin : gen_slot
      always_ff @(posedge clk_i) begin
        if (p_take_i && p_slot_i == 2'(s)) slot_q[s] <= p_records;
      end
    end
    // Read: a mux of the 18 records by slot and index (a case: no variable part-select, which
    // Yosys would build as a shifter over the whole slot).
    logic [RecBits-1:0] rec;
    always_comb begin
      rec = '0;
      for (int s = 0; s < 3; s++)
        for (int i = 0; i < Records; i++)
          if (rec_slot_i == 2'(s) && rec_idx_i == 3'(i)) rec = slot_q[s][i*RecBits+:RecBits];
    end
    assign rec_o[w*RecBits+:RecBits] = rec;

    // mantissas: the current chunk of 32
    logic [511:0] chunk_q;
    always_ff @(posedge clk_i) begin
      if (s_take_i) chunk_q <= word;
    end

    // R1: weight word
    logic [KLanes*WBits-1:0] w1_q;
    always_ff @(posedge clk_i) begin
      if (w_take_i) w1_q <= word[KLanes*WBits-1:0];
    end
    assign w1_all[w*KLanes*WBits+:KLanes*WBits] = w1_q;

    for (genvar s = 0; s < NSeg; s++) begin : gen_mant
      logic [MantBits-1:0] m1_q, m2_q, m3_q;
      // chunk[mant_idx]: a tree of 2:1 muxes, one level per index bit (32 -> 1). Its levels and
      // the per-lane signals below are not traced: with 32 channels of 128 lanes their trace
      // code took most of the Verilated model's compile time (w1_q, x_i and the sums are traced).
      logic [MantBits-1:0] mant_sel;
      /* verilator tracing_off */
      wire [4:0] idx = mant_idx_i[s*5+:5];
      for (genvar lv = 0; lv <= 5; lv++) begin : gen_level
        logic [(32>>lv)*MantBits-1:0] v;
        if (lv == 0) begin : gen_leaves
          assign v = chunk_q;
        end else begin : gen_node
          for (genvar i = 0; i < (32 >> lv); i++) begin : gen_mux
            assign v[i*MantBits+:MantBits] =
                idx[lv-1] ? gen_level[lv-1].v[(2*i+1)*MantBits+:MantBits] :
                            gen_level[lv-1].v[(2*i)*MantBits+:MantBits];
          end
        end
      end
      /* verilator tracing_on */
      assign mant_sel = gen_level[5].v;
      always_ff @(posedge clk_i) begin
        if (w_take_i) m1_q <= grouped_i ? mant_sel : 16'd1;
        if (adv_i) begin
          m2_q <= m1_q;
          m3_q <= m2_q;
        end
      end
      assign m3_all[(w*NSeg+s)*MantBits+:MantBits] = m3_q;
    end
  end

  // ---- per segment: R2 products, R3 exact sums (per way), R4 times the mantissas -------------
  logic [Ways*NSeg*ScaledBits-1:0] scaled;  // [(w*NSeg + s)*ScaledBits +: ScaledBits]
  for (genvar s = 0; s < NSeg; s++) begin : gen_seg
    logic [Ways*SegBits-1:0] seg_d;  // R3 input: each way's exact segment sum
    if (Ways == 1) begin : gen_single
      // R2: products
      logic [SegLanes*ProdBits-1:0] prods;
      /* verilator tracing_off */
      for (genvar l = 0; l < SegLanes; l++) begin : gen_lane
        localparam int unsigned Lane = s * SegLanes + l;
        wire signed [WBits-1:0] w_code = w1_all[Lane*WBits+:WBits];
        wire signed [ABits-1:0] x_code = x_i[Lane*ABits+:ABits];
        logic signed [ProdBits-1:0] prod_q;
        always_ff @(posedge clk_i) begin
          if (adv_i) prod_q <= ProdBits'(w_code) * ProdBits'(x_code);
        end
        assign prods[l*ProdBits+:ProdBits] = prod_q;
      end
      /* verilator tracing_on */
      always_comb begin
        seg_d = '0;
        for (int l = 0; l < SegLanes; l++)
          seg_d = seg_d + SegBits'($signed(prods[l*ProdBits+:ProdBits]));
      end
    end else begin : gen_packed
      // R2: one multiply per lane for both ways
      logic [SegLanes*PackedProdBits-1:0] prods;
      /* verilator tracing_off */
      for (genvar l = 0; l < SegLanes; l++) begin : gen_lane
        localparam int unsigned Lane = s * SegLanes + l;
        wire signed [WBits-1:0] wa = w1_all[Lane*WBits+:WBits];
        wire signed [WBits-1:0] wb = w1_all[(KLanes+Lane)*WBits+:WBits];
        wire signed [PackedBits-1:0] w_packed = (PackedBits'(wb) <<< Shift) + PackedBits'(wa);
        wire signed [ABits-1:0] x_code = x_i[Lane*ABits+:ABits];
        logic signed [PackedProdBits-1:0] prod_q;
        always_ff @(posedge clk_i) begin
          if (adv_i) prod_q <= PackedProdBits'(w_packed) * PackedProdBits'(x_code);
        end
        assign prods[l*PackedProdBits+:PackedProdBits] = prod_q;
      end
      /* verilator tracing_on */
      // R3: the packed sum, then its two fields
      logic signed [PackedSegBits-1:0] packed_sum;
      always_comb begin
        packed_sum = '0;
        for (int l = 0; l < SegLanes; l++)
          packed_sum =
              packed_sum + PackedSegBits'($signed(prods[l*PackedProdBits+:PackedProdBits]));
      end
      wire signed [Shift-1:0] sum_a = packed_sum[Shift-1:0];
      wire signed [PackedSegBits-1:0] sum_b_shifted = packed_sum - PackedSegBits'(sum_a);
      assign seg_d[0+:SegBits] = SegBits'(sum_a);
      assign seg_d[SegBits+:SegBits] = SegBits'(sum_b_shifted >>> Shift);
    end

    // R3 register, R4: times the segment's mantissa, per way
    for (genvar w = 0; w < Ways; w++) begin : gen_scale
      logic signed [SegBits-1:0] seg_q;
      logic signed [ScaledBits-1:0] scaled_q;
      always_ff @(posedge clk_i) begin
        if (adv_i) begin
          seg_q <= seg_d[w*SegBits+:SegBits];
          scaled_q <= ScaledBits'(seg_q) *
              ScaledBits'($signed({1'b0, m3_all[(w*NSeg+s)*MantBits+:MantBits]}));
        end
      end
      assign scaled[(w*NSeg+s)*ScaledBits+:ScaledBits] = scaled_q;
    end
  end

  // ---- R5: the row accumulators ---------------------------------------------------------------
  for (genvar w = 0; w < Ways; w++) begin : gen_acc
    logic signed [WordSumBits-1:0] word_sum;
    logic [SumBits-1:0] acc_q;
    always_comb begin
      word_sum = '0;
      for (int s = 0; s < NSeg; s++)
        word_sum = word_sum + WordSumBits'($signed(scaled[(w*NSeg+s)*ScaledBits+:ScaledBits]));
    end
    always_ff @(posedge clk_i) begin
      if (acc_en_i) acc_q <= (acc_first_i ? '0 : acc_q) + SumBits'(word_sum);
    end
    assign acc_o[w*SumBits+:SumBits] = acc_q;
  end

endmodule

`default_nettype wire
