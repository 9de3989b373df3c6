// st_attention: decode attention of ONE new token over a KV cache streamed from HBM, one layer,
// bit-exact with st::numerics::attention (one pass: attentionTiled; compiler/numerics/
// attention_golden.h, docs/numerics.md §6):
//   s[h][p] = sum_d q[h][d] * k[p][g(h)][d]                 (s8 x s8 -> s32), g(h) = h / Group
//   E[h][.] = exp(s[h][.] - max) rounded to u16 Q1.15     (st_softmax, one per head, not
//             normalized), S[h] = sum_p E[h][p], (R, L)[h] = 1 / (S[h] * 2^17)
//   a[h][d] = sum_p E[h][p] * v[p][g(h)][d]                 (u16 x s8 -> AccBits)
//   u[h][d] = sat(round(a[h][d] * R[h] / 2^(L[h] - 2)), 32) (a / S in Q.15)
//   o[h][d] = sat(round(u[h][d] * M_o), OutBits)
// over positions p = 0 .. n-1, n = cache_len + 1: the cache_len cached positions first, then the
// new token (k_new, v_new) last. Weighing v with the unnormalized E and dividing by the sum at
// the end reads the scores twice, not three times: the value pass of a kv head starts right
// after its scores' maximum is known. Multi-head (NumKvHeads = NumHeads), grouped-query and
// multi-query (NumKvHeads = 1) attention. K and V are each read once per token; the sliding
// window of Gemma 3 local layers is the design's business (it limits cache_len), not the
// kernel's.
//
// The walk over the cache (BlockMajor) visits (kv-head block g, position p, chunk c), a block
// being the KvStep kv heads of one cache token (Blocks = NumKvHeads / KvStep of them) and a
// chunk its CacheLanes codes (Chunks = HeadDim / DimLanes per position and block):
//   position-major (0)  for p: for g: for c. Every head's maximum is known only after the whole
//                       score pass, so the value pass follows it (one walker serves both).
//   block-major (1)     for g: for p: for c. Block g's maximum is known after its score walk, so
//                       a value walker runs block g beside the score walker's block g + 1 (the
//                       score walker starts block g only once the value walker has finished
//                       block g - 2: it is at most one block ahead).
//
// Streams (valid/ready; codes packed from bit 0, element i of a token at [i*8 +: 8]):
//   q       NumHeads*HeadDim s8 codes, head-major, Lanes per token (QTokens tokens).
//   k_new   NumKvHeads*HeadDim s8 codes of the new token's key, kv-head-major, Lanes per token.
//   v_new   likewise for the value.
//   k_cache cache_len*NumKvHeads*HeadDim s8 codes in the walk's order, CacheLanes per token
//           (from a read DMA; none when cache_len = 0): position-major, then kv head, then dim;
//           BlockMajor, by kv-head block, then position, then the block's codes (kv head, dim)
//           of that position (token (g, p, c) holds the codes of position-major token (p, g, c)).
//   v_cache likewise.
//           CacheRound S > 1 (block-major only): each block's run of cache tokens holds
//           ceil(cache_len / S) x S positions, the last (S - cache_len mod S) mod S of them pad
//           that the kernel takes and drops (a read of S positions per DMA token, the positions
//           striped over S pseudo-channels: docs/accelerator.md §7).
//   o       NumHeads*HeadDim signed OutBits codes, head-major, Lanes per token (o leaves
//           through an st_skid_buffer).
// Sideband, sampled with the first q token of an invocation (hold them while it is offered):
//   cache_len_i                      0 .. MaxContext-1 cached positions in k_cache/v_cache;
//   score_mantissa_i/score_shift_i   FixedScale s_q*s_k*attn_scale*log2(e)*2^16 (softmax's M);
//   out_mantissa_i/out_shift_i       FixedScale s_v / (s_o * 2^15).
//
// Phases of one invocation (compiler/model/attention_model.h has the exact cycle counts):
//   Load    accept q (one token per cycle) into its register; sample the sideband with the
//           first q token. k_new and v_new load into theirs beside it, one token per cycle
//           each, and on into Run: the walkers wait for them only at the new position, so the
//           walk over the cache overlaps the calls that compute them (the GEMV engine's k and
//           v after q).
//   Run     the score walker and the value walker (position-major: the value walker starts
//           after the score walker's last chunk; block-major: both at once, as above).
//     Score one chunk of CacheLanes key codes per cycle: the k_cache tokens, with the k_new
//           register's chunks at position n-1 (of each block; the first waits until all of
//           k_new is in). A chunk is a part of one kv head (CacheLanes <= HeadDim: its
//           HeadDim/CacheLanes chunks in turn) or KvStep = CacheLanes/HeadDim whole kv heads at
//           once (heads in parallel: a cache token is KvStep heads' rows, e.g. one position of
//           every kv head). KvStep x Group (Group = NumHeads/NumKvHeads) dot-product lanes of
//           min(CacheLanes, HeadDim) products each (q from the q register); a head's last chunk
//           sends the scores of its heads to their st_softmax instances. The instances buffer
//           the scores (their MaxLen = MaxContext logit buffer is the score buffer), find the
//           maximum, then emit E and sum it; the weights go to one MaxContext x u16 weight
//           memory per head.
//     Value one chunk of CacheLanes value codes per cycle: the v_cache tokens, with the v_new
//           register's chunks at position n-1 (of each block; the first waits until all of
//           v_new is in). A chunk of position p issues once every head of its kv heads has
//           written E[.][p], so the value pass overlaps the softmax's weight pass. Group x
//           CacheLanes products E * v accumulate into the AccBits accumulators
//           (NumHeads*HeadDim registers).
//     One pass (OnePass = 1; block-major over cache tokens of whole kv heads; bit-exact with
//           st::numerics::attentionTiled): no st_softmax. The score walker runs every block
//           back to back and writes each head's scores to a MaxContext x s32 memory, and each
//           tile's running maximum m_t (tiles of TilePositions real positions). The value walker
//           issues a tile once all its scores are in (so it follows a tile behind) and reads
//           them back: per head slot, an exponent lane gives E against m_t and another the
//           tile's factor f = exp2(-(m_t - m_(t-1)) M); the chunk waits beside them six stages;
//           E * v go into the tile's partial accumulators (two sets, by tile parity). After a
//           tile's last position a merge walks its heads' accumulators one element a cycle
//           (HeadDim cycles): a <- round(a * f / 2^32) + P, S likewise (the first tile of a
//           block: a <- P), and the block's last tile starts its heads' reciprocals. A tile's
//           first position waits for the merge two tiles back to have read its partial set.
//   Drain   (after the value walker's last chunk) the value pipeline empties (one pass: and the
//           last merge is written) and every head's (R, L) has arrived.
//   Output  Lanes accumulators at a time: normalize (multiply by R, rounding shift by L - 2),
//           requantize (multiply by M_o, rounding shift with saturation), register slice. The
//           next invocation's Load starts once the last output token has entered the output
//           pipeline.
// Only the output pipeline sees backpressure; a stalled input stream stalls its phase.
`default_nettype none

module st_attention #(
    /// Query heads (a multiple of NumKvHeads).
    parameter int unsigned NumHeads = 4,
    /// Key/value heads: NumHeads (MHA), a divisor (GQA) or 1 (MQA).
    parameter int unsigned NumKvHeads = 2,
    /// Codes per head (a multiple of Lanes; a multiple or a divisor of CacheLanes; <= 32768).
    parameter int unsigned HeadDim = 16,
    /// Positions the kernel holds, new token included: cache_len <= MaxContext - 1 (>= 2).
    parameter int unsigned MaxContext = 64,
    /// Codes per q / k_new / v_new / o token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Codes per k_cache / v_cache token (>= 1): a divisor of HeadDim, or KvStep whole kv heads
    /// (KvStep = CacheLanes / HeadDim dividing NumKvHeads) processed in parallel.
    parameter int unsigned CacheLanes = 4,
    /// Width of a signed output code (2 .. 16).
    parameter int unsigned OutBits = 8,
    /// Walk (and stream) the cache block-major (1) or position-major (0); see the header.
    parameter int unsigned BlockMajor = 0,
    /// Positions of each block's cache run rounded up to a multiple of this (a power of two
    /// dividing MaxContext; > 1 only block-major): the pad positions are taken and dropped.
    parameter int unsigned CacheRound = 1,
    /// One pass (1, block-major, a cache token of whole kv heads only): the value walker follows
    /// the score walker by a tile of TilePositions positions instead of a whole block, each tile
    /// weighed against its heads' running maximum and merged into the running accumulators
    /// rescaled by how far the maximum grew (st::numerics::attentionTiled). Two passes (0): the
    /// weights against each head's final maximum, through st_softmax.
    parameter int unsigned OnePass = 0,
    /// Positions of a one-pass tile (a power of two, 2 .. MaxContext). The merge of a tile takes
    /// HeadDim cycles, so tiles of HeadDim + 12 positions or more never stall the value walker.
    parameter int unsigned TilePositions = 64,
    /// $readmemh file of the exp2_neg_frac table (129 entries u21), as st_softmax.
    parameter ExpTableFile = "",
    /// $readmemh file of the reciprocal table (257 entries u18), as st_softmax.
    parameter ReciprocalTableFile = "",
    /// Width of cache_len_i (derived; do not override).
    parameter int unsigned CacheLenBits = $clog2(MaxContext)
) (
    input  wire                         clk_i,
    input  wire                         rst_ni,            // synchronous, active low
    // query (and the sideband, sampled with its first token)
    input  wire                         q_valid_i,
    output logic                        q_ready_o,
    input  wire  [        Lanes*8-1:0]  q_data_i,
    input  wire  [   CacheLenBits-1:0]  cache_len_i,
    input  wire  [               23:0]  score_mantissa_i,
    input  wire  [                5:0]  score_shift_i,
    input  wire  [               23:0]  out_mantissa_i,
    input  wire  [                5:0]  out_shift_i,
    // the new token's key and value
    input  wire                         k_new_valid_i,
    output logic                        k_new_ready_o,
    input  wire  [        Lanes*8-1:0]  k_new_data_i,
    input  wire                         v_new_valid_i,
    output logic                        v_new_ready_o,
    input  wire  [        Lanes*8-1:0]  v_new_data_i,
    // the cached keys and values
    input  wire                         k_cache_valid_i,
    output logic                        k_cache_ready_o,
    input  wire  [   CacheLanes*8-1:0]  k_cache_data_i,
    input  wire                         v_cache_valid_i,
    output logic                        v_cache_ready_o,
    input  wire  [   CacheLanes*8-1:0]  v_cache_data_i,
    // output
    output logic                        valid_o,
    input  wire                         ready_i,
    output logic [  Lanes*OutBits-1:0]  data_o
);

  if (NumHeads < 1 || NumKvHeads < 1 || NumHeads % NumKvHeads != 0) begin : gen_bad_heads
    $fatal(1, "st_attention: NumHeads must be a positive multiple of NumKvHeads");
  end
  if (Lanes < 1 || CacheLanes < 1 || HeadDim % Lanes != 0 || HeadDim > 32768 ||
      (CacheLanes <= HeadDim ? HeadDim % CacheLanes != 0
                             : CacheLanes % HeadDim != 0 ||
                               NumKvHeads % (CacheLanes / HeadDim) != 0)) begin : gen_bad_dims
    $fatal(1, "st_attention: HeadDim must be a multiple of Lanes, and a multiple of CacheLanes or",
           " CacheLanes a multiple of HeadDim covering a divisor of NumKvHeads (<= 32768)");
  end
  if (MaxContext < 2 || MaxContext > (1 << 20)) begin : gen_bad_context
    $fatal(1, "st_attention: MaxContext must be 2 .. 2^20");
  end
  if (OutBits < 2 || OutBits > 16) begin : gen_bad_out_bits
    $fatal(1, "st_attention: OutBits must be 2 .. 16");
  end
  if (BlockMajor > 1) begin : gen_bad_block_major
    $fatal(1, "st_attention: BlockMajor must be 0 or 1");
  end
  if (CacheRound < 1 || (CacheRound & (CacheRound - 1)) != 0 || MaxContext % CacheRound != 0 ||
      (CacheRound > 1 && BlockMajor == 0)) begin : gen_bad_cache_round
    $fatal(1, "st_attention: CacheRound must be a power of two dividing MaxContext, and 1 ",
           "unless BlockMajor");
  end
  if (OnePass > 1 || (OnePass == 1 && (BlockMajor != 1 || CacheLanes < HeadDim || HeadDim < 4 ||
      TilePositions < 2 || TilePositions > MaxContext ||
      (TilePositions & (TilePositions - 1)) != 0))) begin : gen_bad_one_pass
    $fatal(1, "st_attention: OnePass (0 or 1) needs BlockMajor, a cache token of whole kv heads",
           " (CacheLanes >= HeadDim), HeadDim >= 4 and TilePositions a power of two 2 .. ",
           "MaxContext");
  end
  if (CacheLenBits != $clog2(MaxContext)) begin : gen_bad_derived
    $fatal(1, "st_attention: CacheLenBits is derived; do not override it");
  end

  localparam int unsigned Group = NumHeads / NumKvHeads;
  // kv heads per chunk, and the codes of one kv head a chunk holds
  localparam int unsigned KvStep = CacheLanes > HeadDim ? CacheLanes / HeadDim : 1;
  localparam int unsigned DimLanes = CacheLanes / KvStep;
  localparam int unsigned Chunks = HeadDim / DimLanes;  // chunks per (position, kv head)
  localparam int unsigned Blocks = NumKvHeads / KvStep;  // kv-head blocks walked per position
  localparam int unsigned StepHeads = KvStep * Group;  // query heads served per chunk
  localparam int unsigned QChunkBits = DimLanes * 8;
  localparam int unsigned QCodes = NumHeads * HeadDim;
  localparam int unsigned KvCodes = NumKvHeads * HeadDim;
  localparam int unsigned QTokens = QCodes / Lanes;
  localparam int unsigned KvTokens = KvCodes / Lanes;
  localparam int unsigned ChunkBits = CacheLanes * 8;
  localparam int unsigned QCountBits = $clog2(QTokens + 1);
  localparam int unsigned KvCountBits = $clog2(KvTokens + 1);
  localparam int unsigned OutAddrBits = (QTokens > 1) ? $clog2(QTokens) : 1;
  localparam int unsigned GBits = (Blocks > 1) ? $clog2(Blocks) : 1;
  localparam int unsigned CBits = (Chunks > 1) ? $clog2(Chunks) : 1;
  localparam int unsigned LenBits = $clog2(MaxContext + 1);  // n = cache_len + 1
  localparam int unsigned PAddrBits = $clog2(MaxContext);
  localparam int unsigned SmCfgBits = LenBits + 30;
  // |a| <= n * 2^15 * 2^7 with n <= MaxContext positions
  localparam int unsigned AccBits = 24 + $clog2(MaxContext);
  localparam int unsigned NormBits = AccBits + 33;  // a x u32 R (Q1.30, < 2^31)
  localparam int unsigned ProductBits = 32 + 25;  // s32 normalized a x u24 mantissa
  localparam int unsigned HeadTokens = HeadDim / Lanes;  // output tokens per head
  localparam int unsigned HeadBits = (NumHeads > 1) ? $clog2(NumHeads) : 1;
  localparam int unsigned HeadTokenBits = (HeadTokens > 1) ? $clog2(HeadTokens) : 1;

  typedef enum logic [1:0] {
    Load,
    Run,
    Drain,
    Output
  } state_e;
  state_e state_q;

  // ---- Load: q, k_new, v_new and the sideband -----------------------------------------------
  logic [ QCountBits-1:0] q_count_q;
  logic [KvCountBits-1:0] k_new_count_q, v_new_count_q;
  // Token registers written with one enable per token (no shifters), read as chunks.
  logic [Lanes*8-1:0]     q_q[QTokens];
  logic [Lanes*8-1:0]     k_new_q[KvTokens], v_new_q[KvTokens];
  logic [ CacheLenBits-1:0] cache_len_q;
  logic [23:0]            score_mantissa_q, out_mantissa_q;
  logic [5:0]             score_shift_q, out_shift_q;

  // k_new and v_new load beside q and on into Run: the walkers use them only at the new
  // position (k_new_full / v_new_full), so the walk starts once q is in.
  wire k_new_full = k_new_count_q == KvCountBits'(KvTokens);
  wire v_new_full = v_new_count_q == KvCountBits'(KvTokens);
  assign q_ready_o     = state_q == Load && q_count_q != QCountBits'(QTokens);
  assign k_new_ready_o = (state_q == Load || state_q == Run) && !k_new_full;
  assign v_new_ready_o = (state_q == Load || state_q == Run) && !v_new_full;
  wire q_take = q_valid_i && q_ready_o;
  wire k_new_take = k_new_valid_i && k_new_ready_o;
  wire v_new_take = v_new_valid_i && v_new_ready_o;
  wire load_done = (q_count_q + QCountBits'(q_take)) == QCountBits'(QTokens);

  always_ff @(posedge clk_i) begin
    if (q_take) begin
      if (q_count_q == '0) begin
        cache_len_q      <= cache_len_i;
        score_mantissa_q <= score_mantissa_i;
        score_shift_q    <= score_shift_i;
        out_mantissa_q   <= out_mantissa_i;
        out_shift_q      <= out_shift_i;
      end
    end
  end
  for (genvar t = 0; t < QTokens; t++) begin : gen_q_token
    always_ff @(posedge clk_i) begin
      if (q_take && q_count_q == QCountBits'(t)) q_q[t] <= q_data_i;
    end
  end
  for (genvar t = 0; t < KvTokens; t++) begin : gen_kv_new_token
    always_ff @(posedge clk_i) begin
      if (k_new_take && k_new_count_q == KvCountBits'(t)) k_new_q[t] <= k_new_data_i;
      if (v_new_take && v_new_count_q == KvCountBits'(t)) v_new_q[t] <= v_new_data_i;
    end
  end

  // The same registers as CacheLanes-code chunks (chunk k = codes k*CacheLanes ..).
  logic [QCodes*8-1:0]  q_flat;
  logic [KvCodes*8-1:0] k_new_flat, v_new_flat;
  for (genvar t = 0; t < QTokens; t++) begin : gen_q_flat
    assign q_flat[t*Lanes*8+:Lanes*8] = q_q[t];
  end
  for (genvar t = 0; t < KvTokens; t++) begin : gen_kv_flat
    assign k_new_flat[t*Lanes*8+:Lanes*8] = k_new_q[t];
    assign v_new_flat[t*Lanes*8+:Lanes*8] = v_new_q[t];
  end
  logic [QChunkBits-1:0] q_chunks[NumHeads*Chunks];
  logic [ChunkBits-1:0] k_new_chunks[Blocks*Chunks], v_new_chunks[Blocks*Chunks];
  for (genvar k = 0; k < NumHeads * Chunks; k++) begin : gen_q_chunk
    assign q_chunks[k] = q_flat[k*QChunkBits+:QChunkBits];
  end
  for (genvar k = 0; k < Blocks * Chunks; k++) begin : gen_kv_chunk
    assign k_new_chunks[k] = k_new_flat[k*ChunkBits+:ChunkBits];
    assign v_new_chunks[k] = v_new_flat[k*ChunkBits+:ChunkBits];
  end

  // ---- chunk walks: the score walker (k_cache, k_new) and the value walker (v_cache, v_new) ----
  // Each walks (position, kv-head block, chunk) in the header's order. Position-major, the passes
  // are serial and share one walker; block-major, each has its own.
  localparam bit BlockWalk = BlockMajor != 0;
  localparam int unsigned Walkers = BlockWalk ? 2 : 1;
  localparam int unsigned SW = 0, VW = Walkers - 1;  // the score and the value walker
  // Positions of a walk: 0 .. cache_round - 1 from the cache (those >= cache_len pad), then the
  // new token. cache_round <= MaxContext - 1 + CacheRound - 1 < MaxContext + CacheRound, which
  // LenBits holds since CacheRound divides MaxContext (cache_round <= MaxContext).
  logic [LenBits-1:0] pos_q[Walkers];
  logic [GBits-1:0] g_q[Walkers];
  logic [CBits-1:0] c_q[Walkers];
  logic [Walkers-1:0] from_cache, pad, walk_last_chunk, walk_last;
  // cache_len rounded up to CacheRound (a power of two; 1: cache_len itself)
  wire [LenBits-1:0] cache_round =
      (LenBits'(cache_len_q) + LenBits'(CacheRound - 1)) & ~LenBits'(CacheRound - 1);
  // the score / value walker takes its chunk this cycle (a pad chunk is dropped, not issued)
  logic score_step, value_step;
  for (genvar w = 0; w < Walkers; w++) begin : gen_walker
    wire step = (w == SW && score_step) || (w == VW && value_step);
    wire last_pos = !from_cache[w];  // position n-1: the new token
    wire last_block = g_q[w] == GBits'(Blocks - 1);
    assign from_cache[w] = pos_q[w] < cache_round;
    assign pad[w] = from_cache[w] && pos_q[w] >= LenBits'(cache_len_q);
    assign walk_last_chunk[w] = c_q[w] == CBits'(Chunks - 1);
    assign walk_last[w] = last_pos && last_block && walk_last_chunk[w];
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        pos_q[w] <= '0;
        g_q[w]   <= '0;
        c_q[w]   <= '0;
      end else if (step) begin
        c_q[w] <= walk_last_chunk[w] ? '0 : c_q[w] + 1'b1;
        if (walk_last_chunk[w]) begin
          if (BlockWalk) begin
            pos_q[w] <= last_pos ? '0 : pos_q[w] + 1'b1;
            if (last_pos) g_q[w] <= last_block ? '0 : g_q[w] + 1'b1;
          end else begin
            g_q[w] <= last_block ? '0 : g_q[w] + 1'b1;
            if (last_block) pos_q[w] <= last_pos ? '0 : pos_q[w] + 1'b1;
          end
        end
      end
    end
  end
  wire [ChunkBits-1:0] k_new_chunk = k_new_chunks[g_q[SW]*Chunks+32'(c_q[SW])];
  wire [ChunkBits-1:0] v_new_chunk = v_new_chunks[g_q[VW]*Chunks+32'(c_q[VW])];

  // The value walker's position (the new token's is cache_len) in the memories the score side
  // writes. Whether its chunk may issue is the mode's (value_ready, below): two passes, once its
  // heads' weights reach it; one pass, once the scores of its whole tile are in.
  wire [PAddrBits-1:0] value_pos = from_cache[VW] ? PAddrBits'(pos_q[VW]) : PAddrBits'(cache_len_q);
  logic value_ready;
  wire [LenBits-1:0] context_len = LenBits'(cache_len_q) + 1'b1;

  // The score walker stops after its last chunk. Block-major with two passes, it issues block g
  // only once the value walker is past block g - 2 (the value walker's block + 1 at most); one
  // pass, every head keeps its own scores, so it runs on.
  logic score_done_q;
  wire score_go = state_q == Run && !score_done_q &&
                  (!BlockWalk || OnePass != 0 || {1'b0, g_q[SW]} <= {1'b0, g_q[VW]} + 1'b1);
  wire value_go = state_q == Run && (BlockWalk || score_done_q) && value_ready;
  assign k_cache_ready_o = score_go && from_cache[SW];
  assign v_cache_ready_o = value_go && from_cache[VW];
  assign score_step = score_go && (from_cache[SW] ? k_cache_valid_i : k_new_full);
  assign value_step = value_go && (from_cache[VW] ? v_cache_valid_i : v_new_full);
  always_ff @(posedge clk_i) begin
    if (!rst_ni || state_q == Load) score_done_q <= 1'b0;
    else if (score_step && walk_last[SW]) score_done_q <= 1'b1;
  end

  // ---- output issue (declared here for the state machine) ------------------------------------
  logic                   out_advance;
  logic [OutAddrBits-1:0] out_addr_q;
  wire out_issue = state_q == Output && out_advance;
  wire out_issue_last = out_addr_q == OutAddrBits'(QTokens - 1);
  logic s1_valid_q, s2_valid_q;
  logic [NumHeads-1:0] norm_arrived_q;  // a head's (R, L) of this invocation has arrived
  logic value_idle;  // the value side has nothing in flight (its accumulators are final)

  // ---- state machine -------------------------------------------------------------------------
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q       <= Load;
      q_count_q     <= '0;
      k_new_count_q <= '0;
      v_new_count_q <= '0;
      out_addr_q    <= '0;
    end else begin
      k_new_count_q <= k_new_count_q + KvCountBits'(k_new_take);
      v_new_count_q <= v_new_count_q + KvCountBits'(v_new_take);
      case (state_q)
        Load: begin
          q_count_q <= q_count_q + QCountBits'(q_take);
          if (load_done) state_q <= Run;
        end
        Run: if (value_step && walk_last[VW]) state_q <= Drain;
        // The last products are accumulated once the value pipeline is empty.
        Drain: if (value_idle && &norm_arrived_q) state_q <= Output;
        default: begin
          if (out_issue) out_addr_q <= out_issue_last ? '0 : out_addr_q + 1'b1;
          if (out_issue && out_issue_last) begin
            state_q       <= Load;
            q_count_q     <= '0;
            k_new_count_q <= '0;
            v_new_count_q <= '0;
          end
        end
      endcase
    end
  end

  // ---- Score pass: S1 operands, S2 dot products, S3 score accumulators -----------------------
  logic [ChunkBits-1:0] s1_k_q;
  logic [StepHeads*QChunkBits-1:0] s1_q_q;
  logic [GBits-1:0] s1_g_q, s2_g_q, s3_g_q;
  logic s1_first_q, s1_last_q, s2_first_q, s2_last_q, s3_score_valid_q;
  // A chunk's dot product, exact in 16 + log2(DimLanes) bits (|q*k| <= 2^14); the score
  // accumulates in s32.
  localparam int unsigned PartialBits = 16 + $clog2(DimLanes);
  logic [StepHeads*PartialBits-1:0] s2_partial_q;
  logic [StepHeads*32-1:0] s3_score_q;

  // StepHeads dot products of DimLanes s8 x s8 products (|sum| <= DimLanes * 2^14); head j of
  // the block reads kv head j / Group of the chunk.
  logic [StepHeads*PartialBits-1:0] partial;
  always_comb begin
    for (int j = 0; j < StepHeads; j++) begin
      partial[j*PartialBits+:PartialBits] = '0;
      for (int l = 0; l < DimLanes; l++)
        partial[j*PartialBits+:PartialBits] = partial[j*PartialBits+:PartialBits] +
            PartialBits'($signed(s1_q_q[j*QChunkBits+l*8+:8]) *
                         $signed(s1_k_q[((j/Group)*DimLanes+l)*8+:8]));
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      s1_valid_q       <= 1'b0;
      s2_valid_q       <= 1'b0;
      s3_score_valid_q <= 1'b0;
    end else begin
      s1_valid_q       <= score_step && !pad[SW];
      s2_valid_q       <= s1_valid_q;
      s3_score_valid_q <= s2_valid_q && s2_last_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (score_step) begin
      s1_k_q     <= from_cache[SW] ? k_cache_data_i : k_new_chunk;
      s1_g_q     <= g_q[SW];
      s1_first_q <= c_q[SW] == '0;
      s1_last_q  <= walk_last_chunk[SW];
      for (int j = 0; j < StepHeads; j++)
        s1_q_q[j*QChunkBits+:QChunkBits] <=
            q_chunks[(32'(g_q[SW])*StepHeads+j)*Chunks+32'(c_q[SW])];
    end
    s2_g_q     <= s1_g_q;
    s2_first_q <= s1_first_q;
    s2_last_q  <= s1_last_q;
    s2_partial_q <= partial;
    if (s2_valid_q) begin
      s3_g_q <= s2_g_q;
      for (int j = 0; j < StepHeads; j++)
        s3_score_q[j*32+:32] <= (s2_first_q ? 32'd0 : s3_score_q[j*32+:32]) +
                                32'($signed(s2_partial_q[j*PartialBits+:PartialBits]));
    end
  end

  // ---- the accumulators and each head's normalizer (R, L), read by the output stage ----------
  // Accumulator a[h][d] is acc_q[h*HeadDim + d].
  logic [AccBits-1:0] acc_q[QCodes];
  logic [31:0] norm_mantissa[NumHeads];  // R[h], Q1.30
  logic [5:0] norm_exponent[NumHeads];  // L[h]
  logic [Lanes*AccBits-1:0] acc_tokens[QTokens];
  for (genvar t = 0; t < QTokens; t++) begin : gen_acc_token
    for (genvar i = 0; i < Lanes; i++) begin : gen_lane
      assign acc_tokens[t][i*AccBits+:AccBits] = acc_q[t*Lanes+i];
    end
  end

  if (OnePass == 0) begin : gen_two_pass
    // ---- softmax per head, and the probability memories -----------------------------------------
    // Each instance gets its config in the first Run cycle of an invocation.
    logic [LenBits-1:0] p_written_q[NumKvHeads];
    logic sm_cfg_sent_q;
    wire sm_cfg_valid = state_q == Run && !sm_cfg_sent_q;
    wire [SmCfgBits-1:0] sm_cfg = {score_shift_q, score_mantissa_q, context_len};
    always_ff @(posedge clk_i) begin
      if (!rst_ni) sm_cfg_sent_q <= 1'b0;
      else if (state_q == Load) sm_cfg_sent_q <= 1'b0;
      else if (sm_cfg_valid) sm_cfg_sent_q <= 1'b1;
    end

    logic [NumHeads-1:0] sm_cfg_ready, sm_in_valid, sm_in_ready, sm_out_valid, sm_norm_valid;
    logic [15:0] sm_out[NumHeads];
    logic [NumHeads*16-1:0] v1_p_q;  // E[h][pos] of every head, read with a value chunk

    for (genvar h = 0; h < NumHeads; h++) begin : gen_head
      assign sm_in_valid[h] = s3_score_valid_q && s3_g_q == GBits'(h / StepHeads);
      st_softmax #(
          .Lanes              (1),
          .InBits             (32),
          .MaxLen             (MaxContext),
          .ExpTableFile       (ExpTableFile),
          .ReciprocalTableFile(ReciprocalTableFile),
          .Normalized         (1'b0)
      ) u_softmax (
          .clk_i          (clk_i),
          .rst_ni         (rst_ni),
          .cfg_valid_i    (sm_cfg_valid),
          .cfg_ready_o    (sm_cfg_ready[h]),
          .cfg_data_i     (sm_cfg),
          .valid_i        (sm_in_valid[h]),
          .ready_o        (sm_in_ready[h]),
          .data_i         (s3_score_q[(h%StepHeads)*32+:32]),
          .valid_o        (sm_out_valid[h]),
          .ready_i        (1'b1),
          .data_o         (sm_out[h]),
          .norm_valid_o   (sm_norm_valid[h]),
          .norm_mantissa_o(norm_mantissa[h]),
          .norm_exponent_o(norm_exponent[h])
      );
      always_ff @(posedge clk_i) begin
        if (!rst_ni || state_q == Load) norm_arrived_q[h] <= 1'b0;
        else if (sm_norm_valid[h]) norm_arrived_q[h] <= 1'b1;
      end

      // E[h][.]: written in position order as the instance emits it, read by the value walker.
      (* ram_style = "block" *) logic [15:0] probability_q[MaxContext];
      always_ff @(posedge clk_i) begin
        if (sm_out_valid[h])
          probability_q[PAddrBits'(p_written_q[h/Group])] <= sm_out[h];
        if (value_step) v1_p_q[h*16+:16] <= probability_q[value_pos];
      end
    end

    // Value walker: position p of block g waits until its heads' probabilities reach p (the kv
    // heads of a block receive their scores in the same cycles: its first one counts).
    assign value_ready = pad[VW] || LenBits'(value_pos) < p_written_q[32'(g_q[VW])*KvStep];

    // Every head of a group receives its scores in the same cycles, so emits E in lockstep: the
    // group's first head counts the writes (from 0 in Load: the last weight of an invocation
    // precedes its (R, L), so Drain has seen them all; the value walker may look from Run's first
    // cycle).
    for (genvar g = 0; g < NumKvHeads; g++) begin : gen_group_count
      always_ff @(posedge clk_i) begin
        if (!rst_ni || state_q == Load) p_written_q[g] <= '0;
        else if (sm_out_valid[g*Group]) p_written_q[g] <= p_written_q[g] + 1'b1;
      end
    end

    // ---- Value pass: V1 operands, V2 products, accumulate --------------------------------------
    logic v1_valid_q, v2_valid_q;
    assign value_idle = !v1_valid_q && !v2_valid_q;
    logic [ChunkBits-1:0] v1_v_q;
    logic [GBits-1:0] v1_g_q, v2_g_q;
    logic [CBits-1:0] v1_c_q, v2_c_q;
    logic v1_first_q, v2_first_q;
    logic [StepHeads*DimLanes*24-1:0] v2_product_q;  // u16 x s8: |E v| <= 2^22
    // Accumulator a[h][d] is acc_q[h*HeadDim + d]. The value pass reads the StepHeads x DimLanes
    // accumulators of its (block, chunk) through a mux, adds the products, and writes them back
    // with one enable per accumulator.
    logic [AccBits-1:0] acc_sum[StepHeads*DimLanes];
    always_comb begin
      for (int j = 0; j < StepHeads; j++)
        for (int l = 0; l < DimLanes; l++)
          acc_sum[j*DimLanes+l] =
              (v2_first_q ? AccBits'(0)
                          : acc_q[((32'(v2_g_q)*StepHeads+j)*Chunks+32'(v2_c_q))*DimLanes+l]) +
              AccBits'($signed(v2_product_q[(j*DimLanes+l)*24+:24]));
    end
    for (genvar i = 0; i < QCodes; i++) begin : gen_acc
      localparam int unsigned H = i / HeadDim, D = i % HeadDim;
      always_ff @(posedge clk_i) begin
        if (v2_valid_q && 32'(v2_g_q) == H / StepHeads && 32'(v2_c_q) == D / DimLanes)
          acc_q[i] <= acc_sum[(H%StepHeads)*DimLanes+D%DimLanes];
      end
    end

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        v1_valid_q <= 1'b0;
        v2_valid_q <= 1'b0;
      end else begin
        v1_valid_q <= value_step && !pad[VW];
        v2_valid_q <= v1_valid_q;
      end
    end
    always_ff @(posedge clk_i) begin
      if (value_step) begin
        v1_v_q     <= from_cache[VW] ? v_cache_data_i : v_new_chunk;
        v1_g_q     <= g_q[VW];
        v1_c_q     <= c_q[VW];
        v1_first_q <= pos_q[VW] == '0;
      end
      v2_g_q     <= v1_g_q;
      v2_c_q     <= v1_c_q;
      v2_first_q <= v1_first_q;
      for (int j = 0; j < StepHeads; j++)
        for (int l = 0; l < DimLanes; l++)
          v2_product_q[(j*DimLanes+l)*24+:24] <=
              24'($signed({1'b0, v1_p_q[(32'(v1_g_q)*StepHeads+j)*16+:16]}) *
                  $signed(v1_v_q[((j/Group)*DimLanes+l)*8+:8]));
    end

`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (rst_ni) begin
        // The softmax instances are idle between invocations and never refuse a score: the
        // scores of one head arrive at most one per cycle while the instance is in its load
        // pass.
        if (sm_cfg_valid) assert (&sm_cfg_ready)
          else $error("st_attention: a softmax instance refused its config");
        assert ((sm_in_valid & ~sm_in_ready) == '0)
          else $error("st_attention: a softmax instance refused a score");
      end
    end
`endif
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_bits = ^{sm_in_ready, sm_cfg_ready};
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : gen_one_pass
    // ---- one pass: the scores kept per head, the value walker a tile behind ------------------
    // Tiles are of real positions (cache positions, then the new token at cache_len; pad
    // positions belong to none): tile t holds positions t*T .. t*T + T - 1.
    localparam int unsigned TileBits = $clog2(TilePositions);
    localparam int unsigned Tiles = (MaxContext + TilePositions - 1) / TilePositions;
    localparam int unsigned TileIndexBits = Tiles > 1 ? $clog2(Tiles) : 1;
    localparam int unsigned PartBits = 24 + TileBits;  // a tile's |sum E v| <= T * 2^22
    localparam int unsigned TileSumBits = 16 + TileBits;  // a tile's sum E <= T * 2^15
    localparam int unsigned WeightSumBits = 16 + $clog2(MaxContext);  // S <= n * 2^15
    localparam int unsigned ExpStages = 6;  // st_softmax_exp_lane: B .. G
    localparam int unsigned DimBits = $clog2(HeadDim);
    // tag of a value chunk: block, parity, first and last of its tile, first tile, last tile
    localparam int unsigned TagBits = GBits + 5;

    // Score side: the real position of each score in the S1 .. S3 pipeline.
    logic [LenBits-1:0] s1_pos_q, s2_pos_q, s3_pos_q;
    always_ff @(posedge clk_i) begin
      if (score_step) s1_pos_q <= from_cache[SW] ? pos_q[SW] : LenBits'(cache_len_q);
      s2_pos_q <= s1_pos_q;
      if (s2_valid_q) s3_pos_q <= s2_pos_q;
    end
    wire s3_tile_last = &s3_pos_q[TileBits-1:0] || s3_pos_q == LenBits'(cache_len_q);
    // Scores written per block (the value walker of a block waits for its tile's).
    logic [LenBits-1:0] scores_written_q[Blocks];
    for (genvar b = 0; b < Blocks; b++) begin : gen_written
      always_ff @(posedge clk_i) begin
        if (!rst_ni || state_q == Load) scores_written_q[b] <= '0;
        else if (s3_score_valid_q && s3_g_q == GBits'(b))
          scores_written_q[b] <= scores_written_q[b] + 1'b1;
      end
    end

    // Value walker: a tile's first position issues once all its scores are in and the partial
    // accumulators of its parity are free (the merge of the tile two before has read them).
    wire v_issue = value_step && !pad[VW];
    wire [LenBits-1:0] v_real = LenBits'(value_pos);
    wire v_tile_first = v_real[TileBits-1:0] == '0;
    wire v_tile_last = &v_real[TileBits-1:0] || !from_cache[VW];
    wire v_first_tile = v_real < LenBits'(TilePositions);
    wire [LenBits:0] v_tile_end = ({1'b0, v_real} | (LenBits + 1)'(TilePositions - 1)) + 1'b1;
    wire [LenBits:0] v_needed = v_tile_end < {1'b0, context_len} ? v_tile_end : {1'b0, context_len};
    logic vw_parity_q;
    logic [1:0] p_free_q;
    assign value_ready = pad[VW] || ({1'b0, scores_written_q[g_q[VW]]} >= v_needed &&
                                     (!v_tile_first || p_free_q[vw_parity_q]));

    // Per head: its scores (MaxContext x s32, block RAM) and each tile's running maximum.
    logic [31:0] head_score_q[NumHeads];  // the value walker's score of every head
    logic [31:0] head_tile_max[NumHeads];  // the running maximum at the end of its tile
    logic signed [31:0] run_max_q[StepHeads];
    logic signed [31:0] max_now[StepHeads];
    for (genvar j = 0; j < StepHeads; j++) begin : gen_run_max
      wire signed [31:0] score = s3_score_q[j*32+:32];
      assign max_now[j] = (s3_pos_q == '0 || score > run_max_q[j]) ? score : run_max_q[j];
      always_ff @(posedge clk_i) begin
        if (s3_score_valid_q) run_max_q[j] <= max_now[j];
      end
    end
    for (genvar h = 0; h < NumHeads; h++) begin : gen_head
      wire write = s3_score_valid_q && s3_g_q == GBits'(h / StepHeads);
      (* ram_style = "block" *) logic [31:0] score_mem[MaxContext];
      logic [31:0] tile_max_mem[Tiles];
      always_ff @(posedge clk_i) begin
        if (write) score_mem[PAddrBits'(s3_pos_q)] <= s3_score_q[(h%StepHeads)*32+:32];
        if (write && s3_tile_last)
          tile_max_mem[TileIndexBits'(s3_pos_q >> TileBits)] <= max_now[h%StepHeads];
        if (value_step) head_score_q[h] <= score_mem[value_pos];
      end
      assign head_tile_max[h] = tile_max_mem[TileIndexBits'(v_real >> TileBits)];
    end

    // V1: the chunk, every head slot's score, its tile's maximum and the previous tile's.
    logic v1_valid_q;
    logic [ChunkBits-1:0] v1_v_q;
    logic [GBits-1:0] v1_g_q;
    logic [TagBits-1:0] v1_tag_q;
    logic [31:0] vw_max_q[StepHeads], v1_max_q[StepHeads], v1_prev_max_q[StepHeads];
    always_ff @(posedge clk_i) begin
      if (!rst_ni) v1_valid_q <= 1'b0;
      else v1_valid_q <= v_issue;
      if (!rst_ni || state_q == Load) vw_parity_q <= 1'b0;
      else if (v_issue && v_tile_last) vw_parity_q <= ~vw_parity_q;
    end
    always_ff @(posedge clk_i) begin
      if (value_step) begin
        v1_v_q   <= from_cache[VW] ? v_cache_data_i : v_new_chunk;
        v1_g_q   <= g_q[VW];
        v1_tag_q <= {g_q[VW], vw_parity_q, v_tile_first, v_tile_last, v_first_tile,
                     !from_cache[VW]};
      end
    end
    // (Per head slot in generate loops: Verilator 5.006 cannot unroll every procedural loop
    // that assigns an unpacked array with <=.)
    for (genvar j = 0; j < StepHeads; j++) begin : gen_v1_max
      wire [31:0] tile_max = head_tile_max[32'(g_q[VW])*StepHeads+j];
      always_ff @(posedge clk_i) begin
        if (value_step) begin
          if (v_issue && v_tile_first) vw_max_q[j] <= tile_max;
          v1_max_q[j]      <= v_tile_first ? tile_max : vw_max_q[j];
          v1_prev_max_q[j] <= v_first_tile ? tile_max : vw_max_q[j];
        end
      end
    end

    // B .. G: per head slot, E = exp2(-(m_t - s) M) and the tile's rescale factor
    // f = exp2(-(m_t - m_(t-1)) M), both Q1.32; the chunk and its tag wait beside them.
    logic [32:0] weight_e[StepHeads], factor_e[StepHeads];
    for (genvar j = 0; j < StepHeads; j++) begin : gen_exp
      st_softmax_exp_lane #(
          .InBits   (32),
          .TableFile(ExpTableFile)
      ) u_weight (
          .clk_i     (clk_i),
          .en_i      (1'b1),
          .max_i     (v1_max_q[j]),
          .z_i       (head_score_q[32'(v1_g_q)*StepHeads+j]),
          .mantissa_i(score_mantissa_q),
          .shift_i   (score_shift_q),
          .keep_i    (1'b1),
          .e_o       (weight_e[j])
      );
      st_softmax_exp_lane #(
          .InBits   (32),
          .TableFile(ExpTableFile)
      ) u_factor (
          .clk_i     (clk_i),
          .en_i      (1'b1),
          .max_i     (v1_max_q[j]),
          .z_i       (v1_prev_max_q[j]),
          .mantissa_i(score_mantissa_q),
          .shift_i   (score_shift_q),
          .keep_i    (1'b1),
          .e_o       (factor_e[j])
      );
    end
    logic [ExpStages-1:0] d_valid_q;
    logic [ChunkBits-1:0] d_v_q[ExpStages];
    logic [TagBits-1:0] d_tag_q[ExpStages];
    always_ff @(posedge clk_i) begin
      if (!rst_ni) d_valid_q <= '0;
      else d_valid_q <= {d_valid_q[ExpStages-2:0], v1_valid_q};
    end
    for (genvar k = 0; k < ExpStages; k++) begin : gen_delay
      always_ff @(posedge clk_i) begin
        d_v_q[k]   <= k == 0 ? v1_v_q : d_v_q[k == 0 ? 0 : k-1];
        d_tag_q[k] <= k == 0 ? v1_tag_q : d_tag_q[k == 0 ? 0 : k-1];
      end
    end
    wire g_valid = d_valid_q[ExpStages-1];
    wire [ChunkBits-1:0] g_v = d_v_q[ExpStages-1];
    wire [TagBits-1:0] g_tag = d_tag_q[ExpStages-1];
    wire g_parity = g_tag[4], g_tile_first = g_tag[3];
    // The rescale factor of each parity's tile, taken at the tile's first position.
    logic [32:0] factor_q[2][StepHeads];
    for (genvar j = 0; j < StepHeads; j++) begin : gen_factor
      always_ff @(posedge clk_i) begin
        if (g_valid && g_tile_first) factor_q[g_parity][j] <= factor_e[j];
      end
    end

    // P: E rounded to u16 Q1.15, the products E * v.
    logic vp_valid_q;
    logic [TagBits-1:0] vp_tag_q;
    logic [15:0] vp_weight_q[StepHeads];
    logic [StepHeads*DimLanes*24-1:0] vp_product_q;  // |E v| <= 2^22
    logic [15:0] weight[StepHeads];  // (e + 2^16) / 2^17 <= 2^15
    for (genvar j = 0; j < StepHeads; j++) begin : gen_weight
      wire [32:0] rounded = weight_e[j] + 33'd65536;  // e <= 2^32
      assign weight[j] = rounded[32:17];
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_fraction = ^rounded[16:0];
      /* verilator lint_on UNUSEDSIGNAL */
    end
    always_ff @(posedge clk_i) begin
      if (!rst_ni) vp_valid_q <= 1'b0;
      else vp_valid_q <= g_valid;
      vp_tag_q <= g_tag;
    end
    for (genvar j = 0; j < StepHeads; j++) begin : gen_product
      always_ff @(posedge clk_i) begin
        vp_weight_q[j] <= weight[j];
        for (int l = 0; l < DimLanes; l++)
          vp_product_q[(j*DimLanes+l)*24+:24] <=
              24'($signed({1'b0, weight[j]}) * $signed(g_v[((j/Group)*DimLanes+l)*8+:8]));
      end
    end

    // A: the partial accumulators and weight sums of the tile (two sets, by the tile's
    // parity); a tile's last position hands them to the merge.
    wire [GBits-1:0] vp_g = vp_tag_q[TagBits-1-:GBits];
    wire vp_parity = vp_tag_q[4], vp_tile_first = vp_tag_q[3], vp_tile_last = vp_tag_q[2];
    wire vp_first_tile = vp_tag_q[1], vp_last_tile = vp_tag_q[0];
    logic [PartBits-1:0] partial_q[2][StepHeads*HeadDim];
    logic [TileSumBits-1:0] tile_sum_q[2][StepHeads];
    logic [1:0] merge_pending_q;
    logic [GBits-1:0] merge_g_q[2];
    logic [1:0] merge_first_q, merge_last_q;
    for (genvar i = 0; i < StepHeads * HeadDim; i++) begin : gen_partial
      always_ff @(posedge clk_i) begin
        if (vp_valid_q)
          partial_q[vp_parity][i] <= (vp_tile_first ? PartBits'(0) : partial_q[vp_parity][i]) +
                                     PartBits'($signed(vp_product_q[i*24+:24]));
      end
    end
    for (genvar j = 0; j < StepHeads; j++) begin : gen_tile_sum
      always_ff @(posedge clk_i) begin
        if (vp_valid_q)
          tile_sum_q[vp_parity][j] <= (vp_tile_first ? TileSumBits'(0) : tile_sum_q[vp_parity][j]) +
                                      TileSumBits'(vp_weight_q[j]);
      end
    end
    always_ff @(posedge clk_i) begin
      if (vp_valid_q && vp_tile_last) begin
        merge_g_q[vp_parity]     <= vp_g;
        merge_first_q[vp_parity] <= vp_first_tile;
        merge_last_q[vp_parity]  <= vp_last_tile;
      end
    end

    // Merge, one element of every head slot a cycle (M0 read, M1 x f, M2 round and add):
    //   a <- (first tile ? 0 : round(a * f / 2^32)) + P,  S likewise with the tile's sum.
    logic merge_active_q, merge_parity_q;
    logic [DimBits-1:0] merge_d_q;
    wire merge_read_last = merge_active_q && merge_d_q == DimBits'(HeadDim - 1);
    always_ff @(posedge clk_i) begin
      if (!rst_ni || state_q == Load) begin
        merge_pending_q <= '0;
        merge_active_q  <= 1'b0;
        merge_parity_q  <= 1'b0;
        merge_d_q       <= '0;
        p_free_q        <= 2'b11;
      end else begin
        if (vp_valid_q && vp_tile_last) merge_pending_q[vp_parity] <= 1'b1;
        if (v_issue && v_tile_first) p_free_q[vw_parity_q] <= 1'b0;
        if (!merge_active_q && merge_pending_q[merge_parity_q]) merge_active_q <= 1'b1;
        if (merge_active_q) merge_d_q <= merge_read_last ? '0 : merge_d_q + 1'b1;
        if (merge_read_last) begin
          merge_active_q                  <= 1'b0;
          merge_pending_q[merge_parity_q] <= 1'b0;
          p_free_q[merge_parity_q]        <= 1'b1;
          merge_parity_q                  <= ~merge_parity_q;
        end
      end
    end
    logic m1_valid_q, m2_valid_q;
    logic m1_first_q, m1_last_q, m1_parity_q, m2_first_q, m2_last_q;
    logic [GBits-1:0] m1_g_q, m2_g_q;
    logic [DimBits-1:0] m1_d_q, m2_d_q;
    logic [AccBits-1:0] m1_acc_q[StepHeads];
    logic [PartBits-1:0] m1_part_q[StepHeads], m2_part_q[StepHeads];
    logic [WeightSumBits-1:0] m1_sum_q[StepHeads];
    logic [TileSumBits-1:0] m1_tile_sum_q[StepHeads], m2_tile_sum_q[StepHeads];
    logic [AccBits+33:0] m2_acc_product_q[StepHeads];
    logic [WeightSumBits+33:0] m2_sum_product_q[StepHeads];
    logic [WeightSumBits-1:0] weight_sum_q[NumHeads];  // S[h]
    wire [GBits-1:0] merge_g = merge_g_q[merge_parity_q];
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        m1_valid_q <= 1'b0;
        m2_valid_q <= 1'b0;
      end else begin
        m1_valid_q <= merge_active_q;
        m2_valid_q <= m1_valid_q;
      end
      m1_first_q  <= merge_first_q[merge_parity_q];
      m1_last_q   <= merge_last_q[merge_parity_q];
      m1_parity_q <= merge_parity_q;
      m1_g_q      <= merge_g;
      m1_d_q      <= merge_d_q;
      m2_first_q  <= m1_first_q;
      m2_last_q   <= m1_last_q;
      m2_g_q      <= m1_g_q;
      m2_d_q      <= m1_d_q;
    end
    for (genvar j = 0; j < StepHeads; j++) begin : gen_merge_read
      always_ff @(posedge clk_i) begin
        m1_acc_q[j]      <= acc_q[(32'(merge_g)*StepHeads+j)*HeadDim+32'(merge_d_q)];
        m1_part_q[j]     <= partial_q[merge_parity_q][j*HeadDim+32'(merge_d_q)];
        m1_sum_q[j]      <= weight_sum_q[32'(merge_g)*StepHeads+j];
        m1_tile_sum_q[j] <= tile_sum_q[merge_parity_q][j];
        m2_acc_product_q[j] <=
            (AccBits + 34)'($signed(m1_acc_q[j]) * $signed({1'b0, factor_q[m1_parity_q][j]}));
        m2_sum_product_q[j] <= (WeightSumBits + 34)'(m1_sum_q[j] * factor_q[m1_parity_q][j]);
        m2_part_q[j]     <= m1_part_q[j];
        m2_tile_sum_q[j] <= m1_tile_sum_q[j];
      end
    end
    // M2: round by 2^32 and add; write the accumulator, and (element 0) the head's sum; the
    // block's last tile starts its heads' reciprocals with the final sum.
    logic [AccBits-1:0] merged_acc[StepHeads];
    logic [WeightSumBits-1:0] merged_sum[StepHeads];
    for (genvar j = 0; j < StepHeads; j++) begin : gen_merge
      logic [AccBits-1:0] rescaled_acc;
      st_round_shift #(
          .InWidth (AccBits + 34),
          .OutWidth(AccBits)
      ) u_rescale (
          .clk_i   (clk_i),
          .enable_i(1'b0),
          .value_i(m2_acc_product_q[j]),
          .shift_i(6'd32),
          .value_o(rescaled_acc)
      );
      // S * f >= 0: round half up is the same rounding; f <= 2^32, so the result <= S.
      wire [WeightSumBits+33:0] sum_rounded =
          m2_sum_product_q[j] + (WeightSumBits + 34)'(33'h080000000);
      wire [WeightSumBits-1:0] rescaled_sum = sum_rounded[32+:WeightSumBits];
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_sum_bits = ^{sum_rounded[31:0], sum_rounded[WeightSumBits+33-:2]};
      /* verilator lint_on UNUSEDSIGNAL */
      assign merged_acc[j] = (m2_first_q ? AccBits'(0) : rescaled_acc) +
                             AccBits'($signed(m2_part_q[j]));
      assign merged_sum[j] = (m2_first_q ? WeightSumBits'(0) : rescaled_sum) +
                             WeightSumBits'(m2_tile_sum_q[j]);
    end
    for (genvar i = 0; i < QCodes; i++) begin : gen_acc
      localparam int unsigned H = i / HeadDim, D = i % HeadDim;
      always_ff @(posedge clk_i) begin
        if (m2_valid_q && 32'(m2_g_q) == H / StepHeads && 32'(m2_d_q) == D)
          acc_q[i] <= merged_acc[H%StepHeads];
      end
    end
    wire m2_sum_write = m2_valid_q && m2_d_q == '0;
    for (genvar h = 0; h < NumHeads; h++) begin : gen_sum
      always_ff @(posedge clk_i) begin
        if (m2_sum_write && 32'(m2_g_q) == h / StepHeads) weight_sum_q[h] <= merged_sum[h%StepHeads];
      end
    end

    // 1 / (S * 2^17) per head slot, the block's tag kept beside the six-stage pipeline.
    localparam int unsigned ReciprocalStages = 6;
    wire reciprocal_start = m2_sum_write && m2_last_q;
    logic [GBits-1:0] reciprocal_g_q[ReciprocalStages];
    for (genvar k = 0; k < ReciprocalStages; k++) begin : gen_reciprocal_tag
      always_ff @(posedge clk_i) begin
        reciprocal_g_q[k] <= k == 0 ? m2_g_q : reciprocal_g_q[k == 0 ? 0 : k-1];
      end
    end
    logic [StepHeads-1:0] reciprocal_done;
    logic [31:0] reciprocal_mantissa[StepHeads];
    logic [5:0] reciprocal_exponent[StepHeads];
    for (genvar j = 0; j < StepHeads; j++) begin : gen_reciprocal
      st_softmax_reciprocal #(
          .SumBits  (WeightSumBits + 17),
          .TableFile(ReciprocalTableFile)
      ) u_reciprocal (
          .clk_i     (clk_i),
          .rst_ni    (rst_ni),
          .start_i   (reciprocal_start),
          .sum_i     ({merged_sum[j], 17'd0}),
          .done_o    (reciprocal_done[j]),
          .mantissa_o(reciprocal_mantissa[j]),
          .exponent_o(reciprocal_exponent[j])
      );
    end
    wire [GBits-1:0] reciprocal_g = reciprocal_g_q[ReciprocalStages-1];
    for (genvar h = 0; h < NumHeads; h++) begin : gen_norm
      wire arrive = reciprocal_done[h%StepHeads] && reciprocal_g == GBits'(h / StepHeads);
      always_ff @(posedge clk_i) begin
        if (arrive) begin
          norm_mantissa[h] <= reciprocal_mantissa[h%StepHeads];
          norm_exponent[h] <= reciprocal_exponent[h%StepHeads];
        end
        if (!rst_ni || state_q == Load) norm_arrived_q[h] <= 1'b0;
        else if (arrive) norm_arrived_q[h] <= 1'b1;
      end
    end

    assign value_idle = !v1_valid_q && d_valid_q == '0 && !vp_valid_q && merge_pending_q == '0 &&
                        !merge_active_q && !m1_valid_q && !m2_valid_q;
  end

  // ---- Output: O1 accumulators and their head's (R, L), O2 a x R, O3 rounding shift by L - 2
  // (a / S in Q.15), O4 x M_o, O5 rounding shift + saturation, slice ---------------------------
  // The head of the output token: out_head_q advances every HeadTokens tokens.
  logic [HeadBits-1:0] out_head_q;
  logic [HeadTokenBits-1:0] out_head_token_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      out_head_q       <= '0;
      out_head_token_q <= '0;
    end else if (out_issue) begin
      out_head_token_q <= out_head_token_q == HeadTokenBits'(HeadTokens - 1) ? '0
                                                                            : out_head_token_q + 1'b1;
      if (out_head_token_q == HeadTokenBits'(HeadTokens - 1))
        out_head_q <= out_issue_last ? '0 : out_head_q + 1'b1;
    end
  end

  logic o1_valid_q, o2_valid_q, o3_valid_q, o4_valid_q, o5_valid_q;
  logic [Lanes*AccBits-1:0] o1_acc_q;
  logic [31:0] o1_norm_mantissa_q;
  logic [5:0] o1_norm_shift_q, o2_norm_shift_q;
  logic [23:0] o1_mantissa_q, o2_mantissa_q, o3_mantissa_q;
  logic [5:0] o1_shift_q, o2_shift_q, o3_shift_q, o4_shift_q;
  logic [Lanes*NormBits-1:0] o2_norm_q;
  logic [Lanes*32-1:0] o3_mean_q, mean;
  logic [Lanes*ProductBits-1:0] o4_product_q;
  logic [Lanes*OutBits-1:0] o5_code_q, code;
  logic out_slice_ready;
  assign out_advance = out_slice_ready || !o5_valid_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      o1_valid_q <= 1'b0;
      o2_valid_q <= 1'b0;
      o3_valid_q <= 1'b0;
      o4_valid_q <= 1'b0;
      o5_valid_q <= 1'b0;
    end else if (out_advance) begin
      o1_valid_q <= out_issue;
      o2_valid_q <= o1_valid_q;
      o3_valid_q <= o2_valid_q;
      o4_valid_q <= o3_valid_q;
      o5_valid_q <= o4_valid_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (out_advance) begin
      o1_acc_q           <= acc_tokens[out_addr_q];
      o1_norm_mantissa_q <= norm_mantissa[out_head_q];
      o1_norm_shift_q    <= norm_exponent[out_head_q] - 6'd2;  // L >= 32
      o1_mantissa_q      <= out_mantissa_q;
      o1_shift_q         <= out_shift_q;
      o2_norm_shift_q    <= o1_norm_shift_q;
      o2_mantissa_q      <= o1_mantissa_q;
      o2_shift_q         <= o1_shift_q;
      o3_mantissa_q      <= o2_mantissa_q;
      o3_shift_q         <= o2_shift_q;
      o4_shift_q         <= o3_shift_q;
      for (int i = 0; i < Lanes; i++) begin
        o2_norm_q[i*NormBits+:NormBits] <=
            NormBits'($signed(o1_acc_q[i*AccBits+:AccBits]) * $signed({1'b0, o1_norm_mantissa_q}));
        o4_product_q[i*ProductBits+:ProductBits] <=
            ProductBits'($signed(o3_mean_q[i*32+:32]) * $signed({1'b0, o3_mantissa_q}));
      end
      o3_mean_q <= mean;
      o5_code_q <= code;
    end
  end
  for (genvar i = 0; i < Lanes; i++) begin : gen_requantize
    st_round_shift #(
        .InWidth (NormBits),
        .OutWidth(32)
    ) u_to_mean (
        .clk_i   (clk_i),
        .enable_i(1'b0),
        .value_i(o2_norm_q[i*NormBits+:NormBits]),
        .shift_i(o2_norm_shift_q),
        .value_o(mean[i*32+:32])
    );
    st_round_shift #(
        .InWidth (ProductBits),
        .OutWidth(OutBits)
    ) u_to_code (
        .clk_i   (clk_i),
        .enable_i(1'b0),
        .value_i(o4_product_q[i*ProductBits+:ProductBits]),
        .shift_i(o4_shift_q),
        .value_o(code[i*OutBits+:OutBits])
    );
  end

  st_skid_buffer #(
      .Width(Lanes * OutBits)
  ) u_out_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(o5_valid_q),
      .ready_o(out_slice_ready),
      .data_i (o5_code_q),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (q_take && q_count_q == '0)
        assert (32'(cache_len_i) < MaxContext)
        else $error("st_attention: cache_len %0d exceeds MaxContext - 1", cache_len_i);
    end
  end
`endif

endmodule

`default_nettype wire
