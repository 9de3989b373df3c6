// st_stream_unpack: splits bus words (e.g. 512-bit words from a read DMA) into narrow tokens,
// where every run of TokensPerRun tokens starts on a new word.
//
// A word holds TokensPerWord = WordBits / TokenBits tokens, the first in the least significant
// bits. A run (one row of a tensor in HBM, say) occupies ceil(TokensPerRun / TokensPerWord)
// consecutive words; when TokensPerRun is not a multiple of TokensPerWord, the unused upper slots
// of the run's last word are padding and are dropped. So the input carries
//   run 0: word 0 .. word W-1 (last one partly padding), run 1: word W .. , ...
// and the output carries the TokensPerRun tokens of each run, back to back, with nothing
// between runs.
//
// One token per cycle: the next word is taken in the cycle the held word's last useful token
// leaves. The output goes through an st_skid_buffer, so valid_o/data_o come from registers and
// ready_o depends on registers only (no combinational path from ready_i to ready_o). Latency
// two cycles (word register, output register).
`default_nettype none

module st_stream_unpack #(
    /// Input word width in bits (a multiple of TokenBits).
    parameter int unsigned WordBits = 512,
    /// Output token width in bits (>= 1, divides WordBits).
    parameter int unsigned TokenBits = 16,
    /// Tokens per run (>= 1); each run starts on a new word.
    parameter int unsigned TokensPerRun = 64
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,   // synchronous, active low
    // words
    input  wire                  valid_i,
    output logic                 ready_o,
    input  wire  [ WordBits-1:0] data_i,
    // tokens
    output logic                 valid_o,
    input  wire                  ready_i,
    output logic [TokenBits-1:0] data_o
);

  if (TokenBits < 1 || WordBits < TokenBits || WordBits % TokenBits != 0) begin : gen_bad_width
    $fatal(1, "st_stream_unpack: TokenBits must be >= 1 and divide WordBits");
  end
  if (TokensPerRun < 1) begin : gen_bad_run
    $fatal(1, "st_stream_unpack: TokensPerRun must be >= 1");
  end

  localparam int unsigned TokensPerWord = WordBits / TokenBits;
  localparam int unsigned SlotWidth = TokensPerWord > 1 ? $clog2(TokensPerWord) : 1;
  localparam int unsigned RunWidth = TokensPerRun > 1 ? $clog2(TokensPerRun) : 1;
  localparam logic [SlotWidth-1:0] LastSlot = SlotWidth'(TokensPerWord - 1);
  localparam logic [RunWidth-1:0] LastInRun = RunWidth'(TokensPerRun - 1);

  logic word_valid_q;
  logic [WordBits-1:0] word_q;
  logic [SlotWidth-1:0] slot_q;  // the token of word_q that goes out next
  logic [RunWidth-1:0] index_q;  // its index within the run

  // The output register slice.
  logic slice_ready;
  logic [TokenBits-1:0] token;

  wire emit = word_valid_q && slice_ready;
  wire run_end = index_q == LastInRun;
  // The held word is used up after this token: its last slot, or the run ends in it.
  wire word_end = slot_q == LastSlot || run_end;
  assign ready_o = !word_valid_q || (emit && word_end);
  wire take = valid_i && ready_o;

  if (TokensPerWord > 1) begin : gen_select
    assign token = word_q[slot_q*TokenBits+:TokenBits];
  end else begin : gen_whole
    assign token = word_q;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      word_valid_q <= 1'b0;
      slot_q <= '0;
      index_q <= '0;
    end else begin
      if (emit) begin
        slot_q <= word_end ? '0 : slot_q + 1'b1;
        index_q <= run_end ? '0 : index_q + 1'b1;
        if (word_end) word_valid_q <= 1'b0;
      end
      if (take) word_valid_q <= 1'b1;
    end
  end

  // Payload register is not reset.
  always_ff @(posedge clk_i) begin
    if (take) word_q <= data_i;
  end

  st_skid_buffer #(
      .Width(TokenBits)
  ) u_out_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(word_valid_q),
      .ready_o(slice_ready),
      .data_i (token),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

`ifndef SYNTHESIS
  // A word is replaced only when the held one is gone or its last useful token leaves now.
  always_ff @(posedge clk_i) begin
    if (rst_ni && take && word_valid_q) assert (emit && word_end);
  end
`endif

endmodule

`default_nettype wire
