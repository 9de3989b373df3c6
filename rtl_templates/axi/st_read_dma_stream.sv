// st_read_dma_stream: a tensor streamed out of HBM as itensor tokens. An st_axi_read_dma walks
// the DMA loops of the tensor's HBM layout (compiler: gen/hbm_layout.h) and an st_stream_unpack
// cuts its 512-bit words into tokens: TokensPerRun tokens of PaddedTokenBits per run of words,
// the padding at each run's end dropped; the low TokenBits of each token leave on data_o.
// The loop configuration is latched at the start handshake, exactly as st_axi_read_dma does.
`default_nettype none

module st_read_dma_stream #(
    /// Loops of the DMA's iteration space (1..6).
    parameter int unsigned NumLoops = 1,
    /// AXI address width.
    parameter int unsigned AddrWidth = 64,
    /// AXI data width (the HBM word).
    parameter int unsigned DataWidth = 512,
    /// Longest burst in beats.
    parameter int unsigned MaxBurstLen = 64,
    /// Read bursts in flight at most.
    parameter int unsigned MaxOutstanding = 4,
    /// Bits a token occupies in a word: a power of two dividing DataWidth.
    parameter int unsigned PaddedTokenBits = 32,
    /// Bits of a token (<= PaddedTokenBits).
    parameter int unsigned TokenBits = 32,
    /// Tokens per run of words.
    parameter int unsigned TokensPerRun = 16
) (
    input  wire                    clk_i,
    input  wire                    rst_ni,          // synchronous, active low
    input  wire                    start_valid_i,
    output logic                   start_ready_o,
    input  wire  [  AddrWidth-1:0] base_addr_i,
    input  wire  [NumLoops*32-1:0] trip_counts_i,
    input  wire  [NumLoops*64-1:0] strides_i,
    output logic                   done_o,
    output logic                   error_o,
    input  wire                    hold_i,          // st_axi_read_dma's: no new burst while high
    output logic                   valid_o,
    input  wire                    ready_i,
    output logic [  TokenBits-1:0] data_o,
    output logic [            0:0] m_axi_arid,
    output logic [  AddrWidth-1:0] m_axi_araddr,
    output logic [            7:0] m_axi_arlen,
    output logic [            2:0] m_axi_arsize,
    output logic [            1:0] m_axi_arburst,
    output logic                   m_axi_arlock,
    output logic [            3:0] m_axi_arcache,
    output logic [            2:0] m_axi_arprot,
    output logic                   m_axi_arvalid,
    input  wire                    m_axi_arready,
    input  wire  [            0:0] m_axi_rid,
    input  wire  [  DataWidth-1:0] m_axi_rdata,
    input  wire  [            1:0] m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire                    m_axi_rvalid,
    output logic                   m_axi_rready
);

  if (TokenBits > PaddedTokenBits) begin : gen_bad_token
    $fatal(1, "st_read_dma_stream: TokenBits must be <= PaddedTokenBits");
  end

  logic                 word_valid, word_ready;
  logic [DataWidth-1:0] word_data;
  logic [PaddedTokenBits-1:0] token;

  st_axi_read_dma #(
      .NumLoops(NumLoops),
      .AddrWidth(AddrWidth),
      .DataWidth(DataWidth),
      .IdWidth(1),
      .MaxBurstLen(MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) u_dma (
      .clk_i, .rst_ni, .start_valid_i, .start_ready_o, .base_addr_i, .trip_counts_i, .strides_i,
      .done_o, .error_o, .hold_i,
      .valid_o(word_valid), .ready_i(word_ready), .data_o(word_data),
      .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst, .m_axi_arlock,
      .m_axi_arcache, .m_axi_arprot, .m_axi_arvalid, .m_axi_arready, .m_axi_rid, .m_axi_rdata,
      .m_axi_rresp, .m_axi_rlast, .m_axi_rvalid, .m_axi_rready
  );

  st_stream_unpack #(
      .WordBits(DataWidth),
      .TokenBits(PaddedTokenBits),
      .TokensPerRun(TokensPerRun)
  ) u_unpack (
      .clk_i, .rst_ni,
      .valid_i(word_valid), .ready_o(word_ready), .data_i(word_data),
      .valid_o, .ready_i, .data_o(token)
  );

  assign data_o = token[TokenBits-1:0];

  // verilator lint_off UNUSED
  // The padding bits of a token carry nothing (PaddedTokenBits > TokenBits).
  wire unused_padding = ^token;
  // verilator lint_on UNUSED

endmodule

`default_nettype wire
