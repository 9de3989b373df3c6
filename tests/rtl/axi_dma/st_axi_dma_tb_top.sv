// st_axi_dma_tb_top: test top for the DMA templates. Puts a standalone st_addr_gen, an
// st_axi_read_dma and an st_axi_write_dma side by side at one parameter set, so one Verilated
// model per configuration tests all three. They share the configuration inputs (each latches
// them at its own start handshake); each DMA has its own AXI4 master port. An st_channel_claim
// watches the read master (4 KB pages below 64 KB as its channels).
`default_nettype none

module st_axi_dma_tb_top #(
    /// Loops of the iteration space (1..6).
    parameter int unsigned NumLoops = 3,
    /// AXI data width in bits.
    parameter int unsigned DataWidth = 512,
    /// Longest burst in beats.
    parameter int unsigned MaxBurstLen = 64,
    /// Bursts in flight per DMA.
    parameter int unsigned MaxOutstanding = 4
) (
    input  wire                     clk_i,
    input  wire                     rst_ni,
    // shared configuration
    input  wire  [            63:0] cfg_base_addr_i,
    input  wire  [ NumLoops*32-1:0] cfg_trip_counts_i,
    input  wire  [ NumLoops*64-1:0] cfg_strides_i,
    // standalone address generator
    input  wire                     ag_start_valid_i,
    output logic                    ag_start_ready_o,
    output logic                    ag_valid_o,
    input  wire                     ag_ready_i,
    output logic [            63:0] ag_addr_o,
    output logic                    ag_last_o,
    output logic                    ag_done_o,
    // read DMA
    input  wire                     rd_start_valid_i,
    output logic                    rd_start_ready_o,
    output logic                    rd_done_o,
    output logic                    rd_error_o,
    input  wire                     rd_hold_i,
    // st_channel_claim on the read master: 4 KB "channels" 0 .. 15 (addresses below 64 KB)
    output logic [            15:0] rd_claim_o,
    output logic                    rd_valid_o,
    input  wire                     rd_ready_i,
    output logic [   DataWidth-1:0] rd_data_o,
    output logic [             0:0] m_axi_rd_arid,
    output logic [            63:0] m_axi_rd_araddr,
    output logic [             7:0] m_axi_rd_arlen,
    output logic [             2:0] m_axi_rd_arsize,
    output logic [             1:0] m_axi_rd_arburst,
    output logic                    m_axi_rd_arlock,
    output logic [             3:0] m_axi_rd_arcache,
    output logic [             2:0] m_axi_rd_arprot,
    output logic                    m_axi_rd_arvalid,
    input  wire                     m_axi_rd_arready,
    input  wire  [             0:0] m_axi_rd_rid,
    input  wire  [   DataWidth-1:0] m_axi_rd_rdata,
    input  wire  [             1:0] m_axi_rd_rresp,
    input  wire                     m_axi_rd_rlast,
    input  wire                     m_axi_rd_rvalid,
    output logic                    m_axi_rd_rready,
    // write DMA
    input  wire                     wr_start_valid_i,
    output logic                    wr_start_ready_o,
    output logic                    wr_done_o,
    output logic                    wr_error_o,
    input  wire                     wr_valid_i,
    output logic                    wr_ready_o,
    input  wire  [   DataWidth-1:0] wr_data_i,
    output logic [             0:0] m_axi_wr_awid,
    output logic [            63:0] m_axi_wr_awaddr,
    output logic [             7:0] m_axi_wr_awlen,
    output logic [             2:0] m_axi_wr_awsize,
    output logic [             1:0] m_axi_wr_awburst,
    output logic                    m_axi_wr_awlock,
    output logic [             3:0] m_axi_wr_awcache,
    output logic [             2:0] m_axi_wr_awprot,
    output logic                    m_axi_wr_awvalid,
    input  wire                     m_axi_wr_awready,
    output logic [   DataWidth-1:0] m_axi_wr_wdata,
    output logic [ DataWidth/8-1:0] m_axi_wr_wstrb,
    output logic                    m_axi_wr_wlast,
    output logic                    m_axi_wr_wvalid,
    input  wire                     m_axi_wr_wready,
    input  wire  [             0:0] m_axi_wr_bid,
    input  wire  [             1:0] m_axi_wr_bresp,
    input  wire                     m_axi_wr_bvalid,
    output logic                    m_axi_wr_bready
);

  st_addr_gen #(
      .NumLoops (NumLoops),
      .AddrWidth(64)
  ) i_addr_gen (
      .clk_i,
      .rst_ni,
      .start_valid_i(ag_start_valid_i),
      .start_ready_o(ag_start_ready_o),
      .base_addr_i  (cfg_base_addr_i),
      .trip_counts_i(cfg_trip_counts_i),
      .strides_i    (cfg_strides_i),
      .valid_o      (ag_valid_o),
      .ready_i      (ag_ready_i),
      .addr_o       (ag_addr_o),
      .last_o       (ag_last_o),
      .done_o       (ag_done_o)
  );

  st_axi_read_dma #(
      .NumLoops      (NumLoops),
      .AddrWidth     (64),
      .DataWidth     (DataWidth),
      .IdWidth       (1),
      .MaxBurstLen   (MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) i_read_dma (
      .clk_i,
      .rst_ni,
      .start_valid_i(rd_start_valid_i),
      .start_ready_o(rd_start_ready_o),
      .base_addr_i  (cfg_base_addr_i),
      .trip_counts_i(cfg_trip_counts_i),
      .strides_i    (cfg_strides_i),
      .done_o       (rd_done_o),
      .error_o      (rd_error_o),
      .hold_i       (rd_hold_i),
      .valid_o      (rd_valid_o),
      .ready_i      (rd_ready_i),
      .data_o       (rd_data_o),
      .m_axi_arid   (m_axi_rd_arid),
      .m_axi_araddr (m_axi_rd_araddr),
      .m_axi_arlen  (m_axi_rd_arlen),
      .m_axi_arsize (m_axi_rd_arsize),
      .m_axi_arburst(m_axi_rd_arburst),
      .m_axi_arlock (m_axi_rd_arlock),
      .m_axi_arcache(m_axi_rd_arcache),
      .m_axi_arprot (m_axi_rd_arprot),
      .m_axi_arvalid(m_axi_rd_arvalid),
      .m_axi_arready(m_axi_rd_arready),
      .m_axi_rid    (m_axi_rd_rid),
      .m_axi_rdata  (m_axi_rd_rdata),
      .m_axi_rresp  (m_axi_rd_rresp),
      .m_axi_rlast  (m_axi_rd_rlast),
      .m_axi_rvalid (m_axi_rd_rvalid),
      .m_axi_rready (m_axi_rd_rready)
  );

  st_channel_claim #(
      .AddrWidth     (64),
      .ChannelShift  (12),
      .FirstChannel  (0),
      .Channels      (16),
      .MaxOutstanding(MaxOutstanding)
  ) i_read_claim (
      .clk_i,
      .rst_ni,
      .ar_valid_i(m_axi_rd_arvalid),
      .ar_ready_i(m_axi_rd_arready),
      .ar_addr_i (m_axi_rd_araddr),
      .r_valid_i (m_axi_rd_rvalid),
      .r_ready_i (m_axi_rd_rready),
      .r_last_i  (m_axi_rd_rlast),
      .claim_o   (rd_claim_o)
  );

  st_axi_write_dma #(
      .NumLoops      (NumLoops),
      .AddrWidth     (64),
      .DataWidth     (DataWidth),
      .IdWidth       (1),
      .MaxBurstLen   (MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) i_write_dma (
      .clk_i,
      .rst_ni,
      .start_valid_i(wr_start_valid_i),
      .start_ready_o(wr_start_ready_o),
      .base_addr_i  (cfg_base_addr_i),
      .trip_counts_i(cfg_trip_counts_i),
      .strides_i    (cfg_strides_i),
      .done_o       (wr_done_o),
      .error_o      (wr_error_o),
      .valid_i      (wr_valid_i),
      .ready_o      (wr_ready_o),
      .data_i       (wr_data_i),
      .m_axi_awid   (m_axi_wr_awid),
      .m_axi_awaddr (m_axi_wr_awaddr),
      .m_axi_awlen  (m_axi_wr_awlen),
      .m_axi_awsize (m_axi_wr_awsize),
      .m_axi_awburst(m_axi_wr_awburst),
      .m_axi_awlock (m_axi_wr_awlock),
      .m_axi_awcache(m_axi_wr_awcache),
      .m_axi_awprot (m_axi_wr_awprot),
      .m_axi_awvalid(m_axi_wr_awvalid),
      .m_axi_awready(m_axi_wr_awready),
      .m_axi_wdata  (m_axi_wr_wdata),
      .m_axi_wstrb  (m_axi_wr_wstrb),
      .m_axi_wlast  (m_axi_wr_wlast),
      .m_axi_wvalid (m_axi_wr_wvalid),
      .m_axi_wready (m_axi_wr_wready),
      .m_axi_bid    (m_axi_wr_bid),
      .m_axi_bresp  (m_axi_wr_bresp),
      .m_axi_bvalid (m_axi_wr_bvalid),
      .m_axi_bready (m_axi_wr_bready)
  );

endmodule

`default_nettype wire
