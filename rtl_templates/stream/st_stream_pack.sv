// st_stream_pack: packs narrow tokens into bus words (e.g. 512-bit words for a write DMA), where
// every run of TokensPerRun tokens starts on a new word. The inverse of st_stream_unpack.
//
// A word holds TokensPerWord = WordBits / TokenBits tokens, the first in the least significant
// bits. A run (one row of a tensor in HBM, say) fills ceil(TokensPerRun / TokensPerWord) words;
// when TokensPerRun is not a multiple of TokensPerWord, the upper slots of the run's last word
// are padded with zeros, and the next run starts in a new word.
//
// One token per cycle: a token fills its slot of an accumulator; the token that completes a
// word (its last slot, or the run's last token) sends accumulator and token together to the
// output. The output goes through an st_skid_buffer, so valid_o/data_o come from registers and
// ready_o depends on registers only (no combinational path from ready_i to ready_o). Latency
// one cycle from the completing token.
`default_nettype none

module st_stream_pack #(
    /// Output word width in bits (a multiple of TokenBits).
    parameter int unsigned WordBits = 512,
    /// Input token width in bits (>= 1, divides WordBits).
    parameter int unsigned TokenBits = 16,
    /// Tokens per run (>= 1); each run starts on a new word.
    parameter int unsigned TokensPerRun = 64
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,   // synchronous, active low
    // tokens
    input  wire                  valid_i,
    output logic                 ready_o,
    input  wire  [TokenBits-1:0] data_i,
    // words
    output logic                 valid_o,
    input  wire                  ready_i,
    output logic [ WordBits-1:0] data_o
);

  if (TokenBits < 1 || WordBits < TokenBits || WordBits % TokenBits != 0) begin : gen_bad_width
    $fatal(1, "st_stream_pack: TokenBits must be >= 1 and divide WordBits");
  end
  if (TokensPerRun < 1) begin : gen_bad_run
    $fatal(1, "st_stream_pack: TokensPerRun must be >= 1");
  end

  localparam int unsigned TokensPerWord = WordBits / TokenBits;
  localparam int unsigned SlotWidth = TokensPerWord > 1 ? $clog2(TokensPerWord) : 1;
  localparam int unsigned RunWidth = TokensPerRun > 1 ? $clog2(TokensPerRun) : 1;
  localparam logic [SlotWidth-1:0] LastSlot = SlotWidth'(TokensPerWord - 1);
  localparam logic [RunWidth-1:0] LastInRun = RunWidth'(TokensPerRun - 1);

  logic [SlotWidth-1:0] slot_q;  // the slot the next token fills
  logic [RunWidth-1:0] index_q;  // its index within the run

  // The output register slice.
  logic slice_ready;
  logic [WordBits-1:0] word;

  wire run_end = index_q == LastInRun;
  // The next token completes the word: its last slot, or the run ends with it.
  wire word_end = slot_q == LastSlot || run_end;
  // Only a completing token needs room in the output slice.
  assign ready_o = !word_end || slice_ready;
  wire take = valid_i && ready_o;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      slot_q <= '0;
      index_q <= '0;
    end else if (take) begin
      slot_q <= word_end ? '0 : slot_q + 1'b1;
      index_q <= run_end ? '0 : index_q + 1'b1;
    end
  end

  if (TokensPerWord > 1) begin : gen_accumulate
    // Slots below slot_q hold this word's earlier tokens (payload: not reset, and never read
    // before they are written in the current word).
    logic [TokenBits-1:0] acc_q[TokensPerWord-1];

    for (genvar s = 0; s < TokensPerWord - 1; s++) begin : gen_slot
      always_ff @(posedge clk_i) begin
        if (take && slot_q == SlotWidth'(s)) acc_q[s] <= data_i;
      end
    end

    // The completed word: earlier tokens below slot_q, this token at slot_q, zeros above.
    for (genvar s = 0; s < TokensPerWord; s++) begin : gen_word
      if (s < TokensPerWord - 1) begin : gen_held
        assign word[s*TokenBits+:TokenBits] = slot_q > SlotWidth'(s) ? acc_q[s]
                                            : slot_q == SlotWidth'(s) ? data_i : '0;
      end else begin : gen_top
        assign word[s*TokenBits+:TokenBits] = slot_q == SlotWidth'(s) ? data_i : '0;
      end
    end
  end else begin : gen_whole
    assign word = data_i;
  end

  st_skid_buffer #(
      .Width(WordBits)
  ) u_out_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(valid_i && word_end),
      .ready_o(slice_ready),
      .data_i (word),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

endmodule

`default_nettype wire
