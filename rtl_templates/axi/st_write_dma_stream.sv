// st_write_dma_stream: a token stream written into HBM in the layout of gen/hbm_layout.h. An
// st_stream_pack packs TokensPerRun tokens (zero-extended to PaddedTokenBits) per run into
// 512-bit words, padding each run's last word with zeros, and an st_axi_write_dma writes the
// words along the DMA loops latched at the start handshake.
`default_nettype none

module st_write_dma_stream #(
    /// Loops of the DMA's iteration space (1..6).
    parameter int unsigned NumLoops = 1,
    /// AXI address width.
    parameter int unsigned AddrWidth = 64,
    /// AXI data width (the HBM word).
    parameter int unsigned DataWidth = 512,
    /// Longest burst in beats.
    parameter int unsigned MaxBurstLen = 64,
    /// Write bursts outstanding at most.
    parameter int unsigned MaxOutstanding = 4,
    /// Bits a token occupies in a word: a power of two dividing DataWidth.
    parameter int unsigned PaddedTokenBits = 32,
    /// Bits of a token (<= PaddedTokenBits).
    parameter int unsigned TokenBits = 32,
    /// Tokens per run of words.
    parameter int unsigned TokensPerRun = 16
) (
    input  wire                     clk_i,
    input  wire                     rst_ni,          // synchronous, active low
    input  wire                     start_valid_i,
    output logic                    start_ready_o,
    input  wire  [   AddrWidth-1:0] base_addr_i,
    input  wire  [ NumLoops*32-1:0] trip_counts_i,
    input  wire  [ NumLoops*64-1:0] strides_i,
    output logic                    done_o,
    output logic                    error_o,
    input  wire                     valid_i,
    output logic                    ready_o,
    input  wire  [   TokenBits-1:0] data_i,
    output logic [             0:0] m_axi_awid,
    output logic [   AddrWidth-1:0] m_axi_awaddr,
    output logic [             7:0] m_axi_awlen,
    output logic [             2:0] m_axi_awsize,
    output logic [             1:0] m_axi_awburst,
    output logic                    m_axi_awlock,
    output logic [             3:0] m_axi_awcache,
    output logic [             2:0] m_axi_awprot,
    output logic                    m_axi_awvalid,
    input  wire                     m_axi_awready,
    output logic [   DataWidth-1:0] m_axi_wdata,
    output logic [ DataWidth/8-1:0] m_axi_wstrb,
    output logic                    m_axi_wlast,
    output logic                    m_axi_wvalid,
    input  wire                     m_axi_wready,
    input  wire  [             0:0] m_axi_bid,
    input  wire  [             1:0] m_axi_bresp,
    input  wire                     m_axi_bvalid,
    output logic                    m_axi_bready
);

  if (TokenBits > PaddedTokenBits) begin : gen_bad_token
    $fatal(1, "st_write_dma_stream: TokenBits must be <= PaddedTokenBits");
  end

  logic                 word_valid, word_ready;
  logic [DataWidth-1:0] word_data;

  st_stream_pack #(
      .WordBits(DataWidth),
      .TokenBits(PaddedTokenBits),
      .TokensPerRun(TokensPerRun)
  ) u_pack (
      .clk_i, .rst_ni,
      .valid_i, .ready_o, .data_i(PaddedTokenBits'(data_i)),
      .valid_o(word_valid), .ready_i(word_ready), .data_o(word_data)
  );

  st_axi_write_dma #(
      .NumLoops(NumLoops),
      .AddrWidth(AddrWidth),
      .DataWidth(DataWidth),
      .IdWidth(1),
      .MaxBurstLen(MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) u_dma (
      .clk_i, .rst_ni, .start_valid_i, .start_ready_o, .base_addr_i, .trip_counts_i, .strides_i,
      .done_o, .error_o,
      .valid_i(word_valid), .ready_o(word_ready), .data_i(word_data),
      .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst, .m_axi_awlock,
      .m_axi_awcache, .m_axi_awprot, .m_axi_awvalid, .m_axi_awready, .m_axi_wdata, .m_axi_wstrb,
      .m_axi_wlast, .m_axi_wvalid, .m_axi_wready, .m_axi_bid, .m_axi_bresp, .m_axi_bvalid,
      .m_axi_bready
  );

endmodule

`default_nettype wire
